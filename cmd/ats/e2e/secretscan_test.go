package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/proxy"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/replaytest"
)

// needle is one rendering of a secret the scan looks for.
type needle struct {
	what string
	b    []byte
}

// b64Stem is the part of x's base64 that does not depend on padding or on
// what follows x in an encoded buffer: the encoding of its whole 3-byte
// groups.
func b64Stem(enc *base64.Encoding, x []byte) []byte {
	return []byte(enc.EncodeToString(x[:len(x)/3*3]))
}

// secretNeedles renders every private key and every stored ciphertext the
// ways it could leak: raw bytes, hex (which also matches a 0x prefix; the
// match ignores case) and base64 (standard and URL alphabets, as JSON
// encodes byte slices). creds are plaintext venue API secrets.
func secretNeedles(keys, ciphertexts [][]byte, creds []string) []needle {
	var out []needle
	add := func(what string, x []byte) {
		out = append(out,
			needle{what + " (raw)", x},
			needle{what + " (hex)", []byte(hex.EncodeToString(x))},
			needle{what + " (base64)", b64Stem(base64.StdEncoding, x)},
			needle{what + " (base64url)", b64Stem(base64.URLEncoding, x)})
	}
	for i, k := range keys {
		add(fmt.Sprintf("private key %d", i), k)
	}
	for i, c := range ciphertexts {
		add(fmt.Sprintf("ciphertext %d", i), c)
	}
	for i, c := range creds {
		out = append(out, needle{fmt.Sprintf("venue API secret %d", i), []byte(c)})
	}
	return out
}

// findSecrets returns "<needle> found in <place>" for every needle in every
// place, case-insensitively, in a stable order.
func findSecrets(places map[string][]byte, needles []needle) []string {
	var hits []string
	for where, data := range places {
		low := bytes.ToLower(data)
		for _, n := range needles {
			if bytes.Contains(low, bytes.ToLower(n.b)) {
				hits = append(hits, n.what+" found in "+where)
			}
		}
	}
	sort.Strings(hits)
	return hits
}

// historyText renders a history for the scan: its protojson (in which
// payload bytes are base64) followed by every payload's metadata and data
// bytes as they are.
func historyText(ctx context.Context, h *historypb.History) ([]byte, error) {
	js, err := protojson.Marshal(h)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(js)
	err = proxy.VisitPayloads(ctx, proto.Clone(h), proxy.VisitPayloadsOptions{
		Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			for _, p := range ps {
				keys := make([]string, 0, len(p.GetMetadata()))
				for k := range p.GetMetadata() {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(out, "\n%s=%s", k, p.GetMetadata()[k])
				}
				out.WriteByte('\n')
				out.Write(p.GetData())
			}
			return ps, nil
		},
	})
	return out.Bytes(), err
}

// payloadData concatenates the data of every payload of h.
func payloadData(ctx context.Context, h *historypb.History) ([]byte, int, error) {
	var out bytes.Buffer
	encrypted := 0
	err := proxy.VisitPayloads(ctx, proto.Clone(h), proxy.VisitPayloadsOptions{
		SkipSearchAttributes: true,
		Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			for _, p := range ps {
				if string(p.GetMetadata()[codec.MetadataEncoding]) == codec.EncodingEncrypted {
					encrypted++
				}
				out.Write(p.GetData())
				out.WriteByte('\n')
			}
			return ps, nil
		},
	})
	return out.Bytes(), encrypted, err
}

// decodeHistory returns a copy of h with every payload decoded by cd, as
// the Web UI shows it through the /codec endpoint.
func decodeHistory(ctx context.Context, h *historypb.History, cd *codec.Codec) (*historypb.History, error) {
	d := proto.Clone(h).(*historypb.History)
	err := proxy.VisitPayloads(ctx, d, proxy.VisitPayloadsOptions{
		// Search attributes are plaintext by design (the server indexes
		// them) and never pass a codec; the raw scan covers them.
		SkipSearchAttributes: true,
		Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			return cd.Decode(ps)
		},
	})
	return d, err
}

// historyScan is what the secret scan reads of the workflow histories.
type historyScan struct {
	raw, decoded []byte // historyText of every history, as stored and decoded
	// rawPayloads and decodedPayloads are the payload data alone, for the
	// check that decoding really happened.
	rawPayloads, decodedPayloads []byte
	encrypted                    int // payloads stored encrypted
	workflows                    []string
}

// readHistories fetches the history of every workflow execution on the
// Temporal frontend with a client that has no codec (so as stored) and
// decodes a copy with cd.
func readHistories(t *testing.T, frontend string, cd *codec.Codec) historyScan {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tc, err := client.DialContext(ctx, client.Options{HostPort: frontend, Namespace: "default",
		Logger: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatalf("dial temporal: %v", err)
	}
	defer tc.Close()
	var out historyScan
	var raw, dec, rawP, decP bytes.Buffer
	var token []byte
	for {
		page, err := tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", NextPageToken: token})
		if err != nil {
			t.Fatalf("list workflows: %v", err)
		}
		for _, ex := range page.GetExecutions() {
			id, run := ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()
			out.workflows = append(out.workflows, id)
			h := replaytest.History(t, ctx, tc, id, run)
			d, err := decodeHistory(ctx, h, cd)
			if err != nil {
				t.Fatalf("decode the history of %s: %v", id, err)
			}
			for _, x := range []struct {
				h         *historypb.History
				text, pay *bytes.Buffer
			}{{h, &raw, &rawP}, {d, &dec, &decP}} {
				txt, err := historyText(ctx, x.h)
				if err != nil {
					t.Fatalf("render the history of %s: %v", id, err)
				}
				x.text.Write(txt)
				p, n, err := payloadData(ctx, x.h)
				if err != nil {
					t.Fatalf("payloads of %s: %v", id, err)
				}
				x.pay.Write(p)
				if x.h == h {
					out.encrypted += n
				}
			}
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	out.raw, out.decoded, out.rawPayloads, out.decodedPayloads = raw.Bytes(), dec.Bytes(), rawP.Bytes(), decP.Bytes()
	return out
}

// storedSecrets is every wallet secret of the data dir, opened with the
// master key: the plaintext private keys (the demo wallet's, generated by
// `ats dev --demo`, is known only this way), the venue API secrets, and
// the ciphertexts as stored.
type storedSecrets struct {
	keys        [][]byte
	ciphertexts [][]byte
	creds       []string
}

func readStoredSecrets(t *testing.T, dataDir string) storedSecrets {
	t.Helper()
	master, err := vault.LoadMasterKey(filepath.Join(dataDir, app.MasterKeyFileName), "")
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.FromMasterKey(master)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "ats.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, user_id, key_ciphertext, key_nonce, key_version,
		api_creds_ciphertext, api_creds_nonce, api_creds_key_version FROM wallets`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var s storedSecrets
	for rows.Next() {
		var id, user string
		var key, credsCT vault.Sealed
		if err := rows.Scan(&id, &user, &key.Ciphertext, &key.Nonce, &key.KeyVersion,
			&credsCT.Ciphertext, &credsCT.Nonce, &credsCT.KeyVersion); err != nil {
			t.Fatal(err)
		}
		pk, err := v.Open(vault.WalletKey(user, id), key)
		if err != nil {
			t.Fatalf("open the key of wallet %s: %v", id, err)
		}
		s.keys = append(s.keys, pk)
		s.ciphertexts = append(s.ciphertexts, key.Ciphertext)
		if len(credsCT.Ciphertext) == 0 {
			continue
		}
		plain, err := v.Open(vault.VenueCreds(user, id), credsCT)
		if err != nil {
			t.Fatalf("open the API credentials of wallet %s: %v", id, err)
		}
		var c struct{ Secret, Passphrase string }
		if err := json.Unmarshal(plain, &c); err != nil || c.Secret == "" || c.Passphrase == "" {
			t.Fatalf("API credentials of wallet %s: %v", id, err)
		}
		s.creds = append(s.creds, c.Secret, c.Passphrase)
		s.ciphertexts = append(s.ciphertexts, credsCT.Ciphertext)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSecretScanFindsPlantedSecrets is the scan's self-check: a key planted
// in a workflow payload (encrypted by the codec as every payload is) is
// invisible in the raw history and found in the decoded one, and a
// ciphertext, a key with a 0x prefix in upper case and an API secret are
// found in logs and responses. Without it a scan that can never match
// would pass the end-to-end test.
func TestSecretScanFindsPlantedSecrets(t *testing.T) {
	ctx := context.Background()
	master, key, ct := make([]byte, 32), make([]byte, 32), make([]byte, 60)
	for _, b := range [][]byte{master, key, ct} {
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
	}
	cd, err := codec.FromMasterKeys(master)
	if err != nil {
		t.Fatal(err)
	}
	p, err := converter.GetDefaultDataConverter().ToPayload(map[string]string{"leak": "0x" + strings.ToUpper(hex.EncodeToString(key))})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := cd.Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	h := &historypb.History{Events: []*historypb.HistoryEvent{{
		EventId: 1, EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
				Input: &commonpb.Payloads{Payloads: enc},
			},
		},
	}}}
	raw, err := historyText(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeHistory(ctx, h, cd)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := historyText(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	needles := secretNeedles([][]byte{key}, [][]byte{ct}, []string{"s3cr3t-passphrase"})
	got := findSecrets(map[string][]byte{
		"raw history":     raw,
		"decoded history": decoded,
		"logs":            []byte(`level=INFO msg=x sealed=` + base64.StdEncoding.EncodeToString(ct)),
		"responses":       []byte(`{"data":{"k":"` + strings.ToUpper(hex.EncodeToString(ct)) + `","p":"s3cr3t-passphrase"}}`),
	}, needles)
	want := []string{
		"ciphertext 0 (base64) found in logs",
		"ciphertext 0 (hex) found in responses",
		"private key 0 (hex) found in decoded history",
		"venue API secret 0 found in responses",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("the scan missed: %s (found %q)", w, got)
		}
	}
	for _, g := range got {
		if strings.HasSuffix(g, " in raw history") {
			t.Errorf("%s: the stored history is encrypted and must not match", g)
		}
	}
}

// tradeWithBothWallets has both wallets sign, through the agent API,
// everything the service signs with a wallet key, so their secrets had every
// chance to leak: the demo wallet buys at market (venue credentials derived
// through L1 auth, the order signed), approves (everything is approved:
// nothing is sent) and redeems once the market resolves (a transaction
// through its proxy wallet); the imported EOA, funded on the sandbox chain,
// approves (transactions it signs) and places and cancels a resting order.
// It returns the admin commands' output and the id of the demo order.
func tradeWithBothWallets(t *testing.T, bin, dataDir string, urls map[string]string) (string, string) {
	t.Helper()
	var outputs strings.Builder
	demoKey := linkAgent(t, bin, dataDir, urls, app.DemoEmail, "scan-demo", &outputs)
	eoaKey := linkAgent(t, bin, dataDir, urls, "eoa@example.com", "scan-eoa", &outputs)
	sb := urls["sandbox"]
	var m struct {
		ConditionID string   `json:"conditionId"`
		TokenIDs    []string `json:"tokenIds"`
	}
	sandboxPost(t, sb+"/control/markets", fmt.Sprintf(`{"question":"Will the secret scan pass","slug":"secret-scan","outcomes":["Yes","No"],"price":0.5,"endDate":%q,"negRisk":false,"tags":["test"],"volume":1000}`,
		time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339)), &m)
	if len(m.TokenIDs) != 2 {
		t.Fatalf("created market: %+v", m)
	}
	var bought agentOrder
	agentJSON(t, urls["api"], demoKey, http.MethodPost, "/orders",
		`{"tokenId":"`+m.TokenIDs[0]+`","side":"BUY","price":0.7,"size":10,"type":"MARKET"}`, http.StatusOK, &bought)
	if bought.Data.Order.Status != "FILLED" {
		t.Fatalf("demo market buy: %+v", bought.Data.Order)
	}
	agentJSON(t, urls["api"], demoKey, http.MethodPost, "/wallet/approve", `{"token":"all"}`, http.StatusOK, nil)

	key, err := crypto.HexToECDSA(testKey)
	if err != nil {
		t.Fatal(err)
	}
	eoa := crypto.PubkeyToAddress(key.PublicKey)
	sandboxPost(t, sb+"/control/wallets/"+eoa.Hex()+"/fund", `{"usdc":100,"native":1}`, nil)
	var approved struct {
		Data struct {
			TransactionHashes []string `json:"transactionHashes"`
		} `json:"data"`
	}
	agentJSON(t, urls["api"], eoaKey, http.MethodPost, "/wallet/approve", `{"token":"all"}`, http.StatusOK, &approved)
	if len(approved.Data.TransactionHashes) == 0 {
		t.Fatal("the imported EOA approved nothing: its key signed no transaction")
	}
	var resting agentOrder
	agentJSON(t, urls["api"], eoaKey, http.MethodPost, "/orders",
		`{"tokenId":"`+m.TokenIDs[0]+`","side":"BUY","price":0.2,"size":10}`, http.StatusOK, &resting)
	if resting.Data.Order.Status != "OPEN" {
		t.Fatalf("EOA limit order: %+v", resting.Data.Order)
	}
	agentJSON(t, urls["api"], eoaKey, http.MethodDelete, "/orders/"+resting.Data.Order.ID, "", http.StatusOK, nil)

	sandboxPost(t, sb+"/control/markets/"+m.ConditionID+"/resolve", `{"winner":"Yes"}`, nil)
	var redeemed struct {
		Data struct {
			Redeemed []struct {
				TxHash string `json:"txHash"`
			} `json:"redeemed"`
		} `json:"data"`
	}
	agentJSON(t, urls["api"], demoKey, http.MethodPost, "/settlements/redeem", "", http.StatusOK, &redeemed)
	if len(redeemed.Data.Redeemed) != 1 || redeemed.Data.Redeemed[0].TxHash == "" {
		t.Fatalf("demo redeem: %+v", redeemed.Data)
	}
	return outputs.String(), bought.Data.Order.ID
}

// linkAgent links an agent named name to the user email through the device
// flow, approving with the admin command, and returns its key.
func linkAgent(t *testing.T, bin, dataDir string, urls map[string]string, email, name string, outputs *strings.Builder) string {
	t.Helper()
	var dev struct {
		Data struct {
			DeviceCode string `json:"device_code"`
			UserCode   string `json:"user_code"`
		} `json:"data"`
	}
	postJSON(t, urls["api"]+"/api/auth/device", `{"agent_name":"`+name+`"}`, http.StatusOK, &dev)
	out, err := exec.Command(bin, "admin", "device", "approve", "--email", email, "--code", dev.Data.UserCode, "--mode", "live",
		"--data-dir", dataDir, "--temporal", urls["temporal"]).CombinedOutput()
	outputs.Write(out)
	if err != nil {
		t.Fatalf("device approve: %v\n%s", err, out)
	}
	var tok struct {
		Data struct {
			APIKey string `json:"api_key"`
		} `json:"data"`
	}
	getJSON(t, urls["api"]+"/api/auth/device/token?device_code="+dev.Data.DeviceCode, "", http.StatusOK, &tok)
	if tok.Data.APIKey == "" {
		t.Fatal("no key issued")
	}
	return tok.Data.APIKey
}

// agentJSON calls the agent API with key; the response joins the others
// for the secret scan.
func agentJSON(t *testing.T, api, key, method, path, body string, want int, into any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, api+"/api/agent/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := openapitest.Client(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	decodeWant(t, resp, want, into)
}

// sandboxPost calls the sandbox's control API (the test's hand on the
// venue, not a service response).
func sandboxPost(t *testing.T, url, body string, into any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("POST %s: %v in %s", url, err, b)
		}
	}
}
