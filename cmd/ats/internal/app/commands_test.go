package app

import "testing"

func TestDevAddrBindsLoopbackForPortOnly(t *testing.T) {
	for in, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		":0":             "127.0.0.1:0",
		"0.0.0.0:8080":   "0.0.0.0:8080",
		"[::]:8080":      "[::]:8080",
		"127.0.0.1:9090": "127.0.0.1:9090",
		"10.0.0.5:8080":  "10.0.0.5:8080",
	} {
		if got := devAddr(in); got != want {
			t.Errorf("devAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
