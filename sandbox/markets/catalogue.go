package markets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agent-trading/ats/sandbox/exchange"
)

// Info is everything the sandbox knows about one market: its Gamma
// metadata, its on-chain identity and its trading configuration.
type Info struct {
	ID          int // Gamma's numeric market id
	EventID     int
	Question    string
	Description string
	Slug        string
	EventSlug   string
	EventTitle  string
	Tags        []string
	Outcomes    [2]string
	ConditionID string // 0x + 64 hex
	QuestionID  string
	TokenIDs    [2]string // decimal position ids, index-aligned with Outcomes
	NegRisk     bool
	TickMicro   uint64
	MinMicro    uint64 // minimum order size in micro-shares
	Start       time.Time
	End         time.Time
	// EventStart is the start of the measured window (up/down markets).
	EventStart   time.Time
	VolumeMicro  uint64
	LiquidMicro  uint64
	Resolved     bool
	Winner       int // index into Outcomes; meaningful when Resolved
	ResolvedAt   time.Time
	UpDown       *UpDown
	CreatedByAPI bool
}

// template is one market idea of a tag.
type template struct {
	tag      string
	question string
	fair     int // cents
}

var templates = []template{
	{"politics", "Will the incumbent party win the %s gubernatorial election?", 55},
	{"politics", "Will the Senate confirm the new %s nominee before the deadline?", 62},
	{"politics", "Will voter turnout in %s exceed 60%%?", 41},
	{"politics", "Will %s hold a snap election this year?", 18},
	{"sports", "Will %s win the championship final?", 47},
	{"sports", "Will %s score more than 2.5 goals in the derby?", 38},
	{"sports", "Will %s reach the playoffs this season?", 66},
	{"crypto", "Will %s trade above its all-time high by the end of the quarter?", 29},
	{"crypto", "Will the %s ETF see net inflows this week?", 71},
	{"crypto", "Will %s flip its nearest rival by market cap this year?", 12},
	{"entertainment", "Will %s win Best Picture?", 33},
	{"entertainment", "Will %s top the streaming charts this weekend?", 57},
	{"entertainment", "Will %s announce a world tour before summer?", 44},
}

var subjects = map[string][]string{
	"politics":      {"Ohio", "Arizona", "Nevada", "Georgia", "Michigan", "Virginia"},
	"sports":        {"the Lakers", "Arsenal", "Real Madrid", "the Chiefs", "the Yankees", "Boca Juniors"},
	"crypto":        {"Bitcoin", "Ethereum", "Solana", "XRP", "Dogecoin", "Polygon"},
	"entertainment": {"The Quiet Harbor", "Neon Cathedral", "Aurora Vale", "The Last Orchard", "Paper Moons", "Saltwater"},
}

// Seed is one catalogue entry before it is prepared on chain.
type Seed struct {
	Question    string
	Slug        string
	Tags        []string
	Outcomes    [2]string
	FairMicro   uint64
	End         time.Time
	NegRisk     bool
	VolumeMicro uint64
}

// Catalogue returns n ordinary markets generated from seed: the same seed
// gives the same questions, slugs, prices, volumes and end dates (relative
// to now truncated to the day, so a restarted sandbox lists the same set).
func Catalogue(seed int64, n int, now time.Time) []Seed {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5a4db0c5))
	day := now.UTC().Truncate(24 * time.Hour)
	used := map[string]bool{}
	var out []Seed
	for len(out) < n {
		t := templates[r.IntN(len(templates))]
		subs := subjects[t.tag]
		s := subs[r.IntN(len(subs))]
		q := fmt.Sprintf(t.question, s)
		if used[q] {
			if len(used) >= len(templates)*6 {
				break
			}
			continue
		}
		used[q] = true
		fair := int64(t.fair) + int64(r.IntN(11)) - 5
		fair = max(3, min(97, fair))
		out = append(out, Seed{
			Question:    q,
			Slug:        Slugify(q),
			Tags:        []string{t.tag},
			Outcomes:    [2]string{"Yes", "No"},
			FairMicro:   uint64(fair) * 10_000,
			End:         day.Add(time.Duration(7+r.IntN(120)) * 24 * time.Hour),
			VolumeMicro: uint64(5_000+r.IntN(2_000_000)) * exchange.One,
		})
	}
	return out
}

// Slugify turns a question into a Gamma-style slug.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}
