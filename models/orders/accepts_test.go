package orders

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
)

func TestAcceptsGate(t *testing.T) {
	var a Accepts
	if known, _, err := a.Await(context.Background(), "ord_unknown"); known || err != nil {
		t.Fatalf("unknown order: known=%v err=%v, want false, nil", known, err)
	}
	for _, stored := range []bool{true, false} {
		id := "ord_x"
		a.Open(id)
		got := make(chan bool, 1)
		go func() {
			known, s, err := a.Await(context.Background(), id)
			if !known || err != nil {
				t.Errorf("await: known=%v err=%v", known, err)
			}
			got <- s
		}()
		select {
		case <-got:
			t.Fatal("await returned before the acceptance decided")
		case <-time.After(20 * time.Millisecond):
		}
		a.Decide(id, stored)
		if s := <-got; s != stored {
			t.Fatalf("stored = %v, want %v", s, stored)
		}
		// Decided, it answers at once, for a later attempt too.
		if known, s, _ := a.Await(context.Background(), id); !known || s != stored {
			t.Fatalf("after the decision: known=%v stored=%v", known, s)
		}
	}
	a.Open("ord_slow")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if known, _, err := a.Await(ctx, "ord_slow"); !known || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("undecided past the deadline: known=%v err=%v", known, err)
	}
	a.Decide("ord_never_opened", true) // no gate: nothing to release

	// The stored row goes to the first attempt only; a second decision
	// changes nothing.
	a.Open("ord_row")
	a.stored(&models.Order{ID: "ord_row", Status: models.OrderPending})
	a.Decide("ord_row", false)
	if known, stored, row, _ := a.await(context.Background(), "ord_row"); !known || !stored || row == nil || row.ID != "ord_row" {
		t.Fatalf("first attempt: known=%v stored=%v row=%v", known, stored, row)
	}
	if known, stored, row, _ := a.await(context.Background(), "ord_row"); !known || !stored || row != nil {
		t.Fatalf("second attempt: known=%v stored=%v row=%v", known, stored, row)
	}
	var nilAccepts *Accepts
	if known, _, _ := nilAccepts.Await(context.Background(), "ord_x"); known {
		t.Fatal("a nil Accepts knows nothing")
	}
}
