package orders

import (
	"errors"
	"sync"
	"testing"
)

// Every watcher of an order hears how its next attempt ended, once;
// watchers of other orders and stopped watchers hear nothing; telling an
// order nobody watches (or a service without Attempts) is harmless.
func TestAttempts(t *testing.T) {
	var a Attempts
	first, stopFirst := a.Watch("ord_1")
	second, stopSecond := a.Watch("ord_1")
	other, stopOther := a.Watch("ord_2")
	gone, stopGone := a.Watch("ord_1")
	stopGone()
	defer stopFirst()
	defer stopSecond()
	defer stopOther()

	failed := errors.New("venue unreachable")
	a.done("ord_1", Attempt{Err: failed})
	a.done("ord_3", Attempt{Status: "OPEN"})
	var nobody *Attempts
	nobody.done("ord_1", Attempt{Status: "OPEN"})

	for name, ch := range map[string]<-chan Attempt{"first": first, "second": second} {
		select {
		case at := <-ch:
			if !errors.Is(at.Err, failed) {
				t.Fatalf("%s watcher heard %+v", name, at)
			}
		default:
			t.Fatalf("%s watcher heard nothing", name)
		}
	}
	select {
	case at := <-other:
		t.Fatalf("a watcher of another order heard %+v", at)
	case at := <-gone:
		t.Fatalf("a stopped watcher heard %+v", at)
	default:
	}
	// An attempt after the told ones reaches only those who watch again.
	a.done("ord_1", Attempt{Status: "OPEN"})
	select {
	case at := <-first:
		t.Fatalf("a watcher heard a second attempt: %+v", at)
	default:
	}
	if len(a.waiters) != 1 {
		t.Fatalf("waiters left: %v", a.waiters)
	}
}

// Watching, stopping and telling run concurrently (run with -race).
func TestAttemptsConcurrent(t *testing.T) {
	var a Attempts
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := []string{"ord_1", "ord_2"}[i%2]
			ch, stop := a.Watch(id)
			defer stop()
			a.done(id, Attempt{Status: "OPEN"})
			<-ch // its own done, or an earlier one: every registration hears one
		}()
	}
	wg.Wait()
	if len(a.waiters) != 0 {
		t.Fatalf("waiters left: %v", a.waiters)
	}
}
