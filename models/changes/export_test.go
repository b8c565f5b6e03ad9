package changes

// Channel is the notification channel the feed listens on, for tests that
// must know its LISTEN is in place before they write.
const Channel = channel
