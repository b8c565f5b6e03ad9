package mcp

import "testing"

// TestUniqueMembers: a member named twice, or two members whose names
// encoding/json would match to one field (case, the Kelvin sign, escapes),
// at any depth, are refused; the same name in sibling objects, names equal
// to values and invalid JSON (left to the SDK) pass.
func TestUniqueMembers(t *testing.T) {
	tests := []struct {
		body string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{`{"method":"tools/list","Method":"tools/call"}`, false},
		{`{"method":"a","method":"b"}`, false},
		{`{"method":"a","METHOD":"b"}`, false},
		{`{"\u006dethod":"a","method":"b"}`, false},
		{`{"kind":"a","\u212aind":"b"}`, false},
		{`{"params":{"arguments":{"side":"BUY","Side":"SELL"}}}`, false},
		{`[{"id":1},{"id":2,"ID":3}]`, false},
		{`{"a":[{"b":1},{"b":2}],"c":{"b":3}}`, true},
		{`{"a":"a","b":["a","A"],"A2":{"a":{}}}`, true},
		{`[{"id":1},{"id":2}]`, true},
		{`{"a":{"b":{"c":[1,{"d":2,"e":3}]}},"f":4}`, true},
		{`{"a":{"b":{"c":[1,{"d":2,"D":3}]}},"f":4}`, false},
		{`{"method":`, true},
		{`not json`, true},
	}
	for _, tt := range tests {
		if err := uniqueMembers([]byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok=%v", tt.body, err, tt.ok)
		}
	}
}
