package persist

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-trading/ats/sandbox/internal/childtest"
)

type rec struct {
	N    int      `json:"n"`
	Tags []string `json:"tags,omitempty"`
}

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func scanAll(t *testing.T, s *Store, prefix string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := s.Scan(prefix, func(k string, v []byte) error {
		var r rec
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		out[k] = r.N
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStoreWritesInOrderAndReopens(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	s.Put("o/a", rec{N: 1})
	s.Put("o/b", rec{N: 2})
	s.Put("o/a", rec{N: 3}) // a later value of the same key wins
	s.Put("t/1", rec{N: 4})
	s.Delete("o/b")
	s.Put("h/x/1", rec{N: 5})
	s.Put("h/x/2", rec{N: 6})
	s.Put("h/x/3", rec{N: 7})
	s.DeleteRange("h/x/", "h/x/3")
	// Changes applied together: a put, a delete of an earlier key, another put.
	s.Put("m/1", rec{N: 8})
	seq := s.Apply([]string{"t/2", "m/1", "t/3"}, []any{rec{N: 9}, nil, rec{N: 10}})
	if err := s.Wait(seq); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir)
	defer s.Close()
	if got := scanAll(t, s, "o/"); len(got) != 1 || got["o/a"] != 3 {
		t.Errorf("o/ = %v, want only o/a = 3", got)
	}
	if got := scanAll(t, s, "h/"); len(got) != 1 || got["h/x/3"] != 7 {
		t.Errorf("h/ = %v, want only h/x/3 = 7", got)
	}
	var r rec
	if ok, err := s.Get("t/1", &r); !ok || err != nil || r.N != 4 {
		t.Errorf("Get t/1 = %v %v %+v", ok, err, r)
	}
	if got := scanAll(t, s, "t/"); len(got) != 3 || got["t/2"] != 9 || got["t/3"] != 10 {
		t.Errorf("t/ = %v", got)
	}
	if ok, err := s.Get("m/1", &r); ok || err != nil {
		t.Errorf("Get of a deleted key = %v %v", ok, err)
	}
}

// TestStoreGroupCommit has many writers wait for their own changes at once:
// each sees its change durable, and the changes are applied in queue order
// (the last value of a shared key is the last one queued).
func TestStoreGroupCommit(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	var mu sync.Mutex // stands in for the engine's lock: queue order = mutation order
	last := 0
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				mu.Lock()
				n := w*1000 + i
				s.Put(fmt.Sprintf("k/%02d/%03d", w, i), rec{N: n})
				seq := s.Put("shared", rec{N: n})
				last = n
				mu.Unlock()
				if err := s.Wait(seq); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	defer s.Close()
	if got := scanAll(t, s, "k/"); len(got) != 16*50 {
		t.Errorf("%d keys, want %d", len(got), 16*50)
	}
	var r rec
	if _, err := s.Get("shared", &r); err != nil || r.N != last {
		t.Errorf("shared = %d (%v), want the last queued %d", r.N, err, last)
	}
}

func TestStoreAfterClose(t *testing.T) {
	s := open(t, t.TempDir())
	seq := s.Put("a", rec{N: 1})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(seq); err != nil {
		t.Errorf("a change queued before Close is durable: %v", err)
	}
	if err := s.Wait(s.Put("b", rec{N: 2})); err == nil {
		t.Error("a change queued after Close claims to be durable")
	}
}

func TestStoreRefusesUnencodableValues(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	if err := s.Wait(s.Put("bad", func() {})); err == nil {
		t.Fatal("a value JSON cannot encode was called durable")
	}
	// The store stops claiming durability once a write failed.
	if err := s.Wait(s.Put("good", rec{N: 1})); err == nil {
		t.Fatal("writes after a failed one claim to be durable")
	}
}

// storeChildEnv makes the test binary run storeChild instead of the tests.
const storeChildEnv = "ATS_SANDBOX_PERSIST_CHILD"

// TestStoreSurvivesKill kills (SIGKILL) a process that writes and reports
// each change once Wait returned: every reported change is there after the
// kill, and the database opens cleanly.
func TestStoreSurvivesKill(t *testing.T) {
	if dir := os.Getenv(storeChildEnv); dir != "" {
		storeChild(dir)
		return
	}
	dir := t.TempDir()
	child := childtest.Start(t, "TestStoreSurvivesKill", storeChildEnv, dir)
	acked := 0
	sc := child.Lines()
	for acked < 2000 && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "durable" {
			n, _ := strconv.Atoi(f[1])
			acked = max(acked, n) // durable n means 1..n are: they were queued before it
		}
	}
	if acked < 2000 {
		t.Fatalf("the child stopped after %d changes", acked)
	}
	child.Kill() // mid-write: it never stops writing

	s := open(t, dir)
	defer s.Close()
	got := scanAll(t, s, "k/")
	for i := 1; i <= acked; i++ {
		if got[fmt.Sprintf("k/%08d", i)] != i {
			t.Fatalf("change %d was reported durable and is missing after the kill", i)
		}
	}
	var r rec
	if _, err := s.Get("last", &r); err != nil || r.N < acked {
		t.Errorf("last = %d (%v), reported %d", r.N, err, acked)
	}
}

// storeChild writes from four goroutines and reports each change's number
// once it is durable, until killed.
func storeChild(dir string) {
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	n := 0
	for range 4 {
		go func() {
			for {
				mu.Lock()
				n++
				i := n
				s.Put(fmt.Sprintf("k/%08d", i), rec{N: i})
				seq := s.Put("last", rec{N: i})
				mu.Unlock()
				if err := s.Wait(seq); err != nil {
					os.Exit(3)
				}
				mu.Lock()
				fmt.Printf("durable %d\n", i)
				mu.Unlock()
			}
		}()
	}
	select {}
}
