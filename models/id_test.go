package models

import (
	"strings"
	"testing"
)

func TestNewID(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
	}{
		{PrefixWallet, "wal_"},
		{"ord_", "ord_"},
		{PrefixDeviceLink, "dl_"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			seen := map[string]bool{}
			for range 1000 {
				id := NewID(tt.prefix)
				if !strings.HasPrefix(id, tt.want) || strings.HasPrefix(id, tt.want+"_") {
					t.Fatalf("NewID(%q) = %q, want prefix %q", tt.prefix, id, tt.want)
				}
				rest := strings.TrimPrefix(id, tt.want)
				if len(rest) != 26 {
					t.Fatalf("random part %q has %d chars, want 26", rest, len(rest))
				}
				if strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz234567") != "" {
					t.Fatalf("random part %q outside lowercase base32", rest)
				}
				if seen[id] {
					t.Fatalf("duplicate id %q", id)
				}
				seen[id] = true
				if !HasPrefix(id, tt.prefix) {
					t.Fatalf("HasPrefix(%q, %q) = false", id, tt.prefix)
				}
			}
		})
	}
}

func TestHasPrefix(t *testing.T) {
	tests := []struct {
		id, prefix string
		want       bool
	}{
		{"wal_abc", "wal", true},
		{"wal_abc", "wal_", true},
		{"wal_", "wal", false},
		{"walx_abc", "wal", false},
		{"usr_abc", "wal", false},
		{"", "wal", false},
	}
	for _, tt := range tests {
		if got := HasPrefix(tt.id, tt.prefix); got != tt.want {
			t.Errorf("HasPrefix(%q, %q) = %v, want %v", tt.id, tt.prefix, got, tt.want)
		}
	}
}

func TestAgentScopes(t *testing.T) {
	a := Agent{Scopes: " read  trade cancel "}
	if got := a.ScopeList(); len(got) != 3 || got[0] != "read" || got[2] != "cancel" {
		t.Fatalf("ScopeList = %q", got)
	}
	for scope, want := range map[string]bool{"read": true, "trade": true, "redeem": false, "rea": false, "": false} {
		if got := a.HasScope(scope); got != want {
			t.Errorf("HasScope(%q) = %v, want %v", scope, got, want)
		}
	}
}
