package sandbox

import (
	"html/template"
	"math/big"
	"net/http"
	"regexp"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// explorer is the sandbox chain's block explorer, as Polygonscan is the
// live chain's: GET /explorer/tx/{hash} shows a transaction (block,
// status, from, to, gas, logs), so a fill's transaction hash in the
// dashboard links somewhere on the sandbox too.
type explorer struct{ c *ethclient.Client }

var txHashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

func (e explorer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := r.PathValue("hash")
	if !txHashRE.MatchString(h) {
		http.Error(w, "not a transaction hash", http.StatusBadRequest)
		return
	}
	hash := common.HexToHash(h)
	ctx := r.Context()
	tx, pending, err := e.c.TransactionByHash(ctx, hash)
	if err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_ = txPage.Execute(w, map[string]any{"Hash": hash.Hex()})
		return
	}
	d := map[string]any{"Hash": hash.Hex(), "Found": true, "Pending": pending, "Nonce": tx.Nonce(), "Gas": tx.Gas()}
	if to := tx.To(); to != nil {
		d["To"] = to.Hex()
	}
	if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err == nil {
		d["From"] = from.Hex()
	}
	d["Value"] = new(big.Float).Quo(new(big.Float).SetInt(tx.Value()), big.NewFloat(1e18)).Text('f', 6)
	if !pending {
		if rc, err := e.c.TransactionReceipt(ctx, hash); err == nil {
			d["Block"], d["GasUsed"], d["Logs"] = rc.BlockNumber.String(), rc.GasUsed, len(rc.Logs)
			d["Success"] = rc.Status == types.ReceiptStatusSuccessful
			if b, err := e.c.HeaderByNumber(ctx, rc.BlockNumber); err == nil {
				d["Time"] = b.Time
			}
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	_ = txPage.Execute(w, d)
}

var txPage = template.Must(template.New("tx").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Transaction {{.Hash}} · sandbox explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f5f7fa}
.card{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.25rem 1.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem}dt{color:#627d98}dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
</style></head><body>
<h1>Sandbox chain explorer</h1>
<div class="card">
{{if .Found}}
<dl>
<dt>Transaction</dt><dd>{{.Hash}}</dd>
<dt>Status</dt><dd>{{if .Pending}}pending{{else if .Success}}success{{else}}reverted{{end}}</dd>
{{with .Block}}<dt>Block</dt><dd>{{.}}</dd>{{end}}
{{with .Time}}<dt>Block time</dt><dd>{{.}} (unix)</dd>{{end}}
<dt>From</dt><dd>{{.From}}</dd>
<dt>To</dt><dd>{{or .To "contract creation"}}</dd>
<dt>Value</dt><dd>{{.Value}} native</dd>
<dt>Gas</dt><dd>{{with .GasUsed}}{{.}} used of {{end}}{{.Gas}}</dd>
{{with .Logs}}<dt>Logs</dt><dd>{{.}}</dd>{{end}}
</dl>
{{else}}<p>No transaction {{.Hash}} on the sandbox chain.</p>{{end}}
</div></body></html>`))
