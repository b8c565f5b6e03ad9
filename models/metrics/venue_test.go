package metrics

import "testing"

// TestEndpoint: venue paths become bounded labels: ids, hashes and slugs
// never reach a label value.
func TestEndpoint(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/order", "/order"},
		{"/data/orders", "/data/orders"},
		{"/data/order/0x6f1c2a9b0e5d4c3b2a1908f7e6d5c4b3a2918070f6e5d4c3b2a1908f7e6d5c4b", "/data/order"},
		{"/markets/71321045679252212594626385532706912750332728571942532289631379312455583992563", "/markets/:id"},
		{"/markets/slug/will-the-fed-cut-rates-in-december-two-thousand", "/markets/slug"},
		{"/events/a-very-long-slug-without-digits-at-all", "/events/:id"},
		{"/", "/"},
		{"", "/"},
	} {
		if got := Endpoint(c.path); got != c.want {
			t.Errorf("Endpoint(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) != len(collectors()) {
		t.Fatalf("%d names for %d collectors: %v", len(names), len(collectors()), names)
	}
	for _, n := range names {
		if len(n) < 5 || n[:4] != "ats_" {
			t.Errorf("name %q", n)
		}
	}
}
