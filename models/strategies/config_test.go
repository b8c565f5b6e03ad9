package strategies_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
)

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name, typ, config, code string
	}{
		{"price alert", "PRICE_ALERT", `{"tokenId":"1","side":"buy","triggerCondition":"PRICE_LTE","triggerPrice":0.42,"size":10}`, ""},
		{"price alert by query", "PRICE_ALERT", `{"marketQuery":"election","side":"SELL","triggerCondition":"PRICE_GTE","triggerPrice":"0.6","size":5,"orderType":"LIMIT"}`, ""},
		{"both selectors", "PRICE_ALERT", `{"tokenId":"1","marketQuery":"x","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1}`, errs.CodeInvalidMarketSelector},
		{"no selector", "PRICE_ALERT", `{"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1}`, errs.CodeInvalidMarketSelector},
		{"trigger price 1", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":1,"size":1}`, errs.CodeInvalidTriggerPrice},
		{"trigger price 0", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0,"size":1}`, errs.CodeInvalidTriggerPrice},
		{"bad condition", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"BELOW","triggerPrice":0.4,"size":1}`, errs.CodeInvalidTriggerCondition},
		{"bad side", "PRICE_ALERT", `{"tokenId":"1","side":"HOLD","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1}`, errs.CodeInvalidSide},
		{"zero size", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":0}`, errs.CodeInvalidStrategyAmount},
		{"bad order type", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1,"orderType":"FAK"}`, errs.CodeInvalidOrderType},
		{"field of another type", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1,"buyBelow":0.3}`, errs.CodeUnknownField},
		{"bad token id", "PRICE_ALERT", `{"tokenId":"abc","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.4,"size":1}`, errs.CodeInvalidTokenID},
		{"recurring ms", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"intervalMs":60000}`, ""},
		{"recurring human", "RECURRING_BUY", `{"marketQuery":"btc 15m up","outcome":"yes","amountPerInterval":5,"interval":"15m","maxTotalAmount":50,"priceLimit":0.6}`, ""},
		{"recurring 1d", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"interval":"1d"}`, ""},
		{"interval too short", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"intervalMs":59999}`, errs.CodeInvalidInterval},
		{"interval unreadable", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"interval":"soon"}`, errs.CodeInvalidInterval},
		{"both intervals", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"interval":"1h","intervalMs":60000}`, errs.CodeInvalidInterval},
		{"no interval", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5}`, errs.CodeInvalidInterval},
		{"bad outcome", "RECURRING_BUY", `{"tokenId":"1","outcome":"Maybe","amountPerInterval":5,"interval":"1h"}`, errs.CodeInvalidOutcome},
		{"negative amount", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":-5,"interval":"1h"}`, errs.CodeInvalidStrategyAmount},
		{"price limit 1.2", "RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5,"interval":"1h","priceLimit":1.2}`, errs.CodeInvalidPriceBand},
		{"blsh", "BUY_LOW_SELL_HIGH", `{"tokenId":"1","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":10,"maxOpenSize":30}`, ""},
		{"blsh inverted", "BUY_LOW_SELL_HIGH", `{"tokenId":"1","buyBelow":0.6,"sellAbove":0.6,"sizePerTrade":10}`, errs.CodeInvalidPriceBand},
		{"blsh max open below size", "BUY_LOW_SELL_HIGH", `{"tokenId":"1","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":10,"maxOpenSize":5}`, errs.CodeInvalidStrategyAmount},
		{"blsh no size", "BUY_LOW_SELL_HIGH", `{"tokenId":"1","buyBelow":0.4,"sellAbove":0.6}`, errs.CodeInvalidStrategyAmount},
		{"copy fixed", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, ""},
		{"copy proportional", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"PROPORTIONAL","proportionPct":"12.5","copySells":false,"maxPositionSize":100,"tokenFilter":["2","1"]}`, ""},
		{"copy no target", "COPY_TRADE", `{"sizingMode":"fixed","fixedAmount":5,"copySells":true}`, errs.CodeInvalidTargetAddress},
		{"copy bad target", "COPY_TRADE", `{"targetAddress":"0x12","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, errs.CodeInvalidTargetAddress},
		{"copy target without 0x", "COPY_TRADE", `{"targetAddress":"00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, errs.CodeInvalidTargetAddress},
		{"copy zero target", "COPY_TRADE", `{"targetAddress":"0x0000000000000000000000000000000000000000","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, errs.CodeInvalidTargetAddress},
		{"copy bad mode", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"double","fixedAmount":5,"copySells":true}`, errs.CodeInvalidSizingMode},
		{"copy fixed without amount", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","copySells":true}`, errs.CodeInvalidSizingMode},
		{"copy fixed with pct", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"proportionPct":10,"copySells":true}`, errs.CodeInvalidSizingMode},
		{"copy proportional without pct", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"proportional","copySells":true}`, errs.CodeInvalidSizingMode},
		{"copy zero amount", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":0,"copySells":true}`, errs.CodeInvalidStrategyAmount},
		{"copy pct 0.5", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"proportional","proportionPct":0.5,"copySells":true}`, errs.CodeInvalidProportion},
		{"copy pct 101", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"proportional","proportionPct":101,"copySells":true}`, errs.CodeInvalidProportion},
		{"copy no copySells", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5}`, errs.CodeInvalidCopySells},
		{"copy copySells string", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":"yes"}`, errs.CodeInvalidField},
		{"copy negative max position", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true,"maxPositionSize":-1}`, errs.CodeInvalidStrategyAmount},
		{"copy bad token filter", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true,"tokenFilter":["x"]}`, errs.CodeInvalidTokenFilter},
		{"copy duplicate token filter", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true,"tokenFilter":["7","7"]}`, errs.CodeInvalidTokenFilter},
		{"copy with a market", "COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":5,"copySells":true,"tokenId":"1"}`, errs.CodeUnknownField},
		{"unknown type", "TWAP", `{}`, errs.CodeInvalidStrategyType},
		{"not an object", "PRICE_ALERT", `[1]`, errs.CodeInvalidField},
		{"wrong json type", "PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":true,"size":1}`, errs.CodeInvalidField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, norm, err := strategies.ParseConfig(tc.typ, json.RawMessage(tc.config))
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				var back map[string]any
				if err := json.Unmarshal(norm, &back); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := errs.CodeOf(err); got != tc.code {
				t.Fatalf("code %q (%v), want %q", got, err, tc.code)
			}
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("kind %v, want invalid", errs.KindOf(err))
			}
		})
	}
}

func TestConfigNormalisedAndNumbers(t *testing.T) {
	c, norm, err := strategies.ParseConfig("PRICE_ALERT", json.RawMessage(`{"tokenId":"1","side":"buy","triggerCondition":"price_lte","triggerPrice":"0.420","size":10}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.42,"size":10,"orderType":"MARKET"}`
	if string(norm) != want {
		t.Fatalf("stored %s, want %s", norm, want)
	}
	if c.TriggerPrice.String() != "0.42" {
		t.Fatal(c.TriggerPrice)
	}
	rc, _, err := strategies.ParseConfig("RECURRING_BUY", json.RawMessage(`{"tokenId":"1","amountPerInterval":5,"interval":"15m"}`))
	if err != nil || rc.IntervalDuration().Minutes() != 15 {
		t.Fatal(err, rc.IntervalDuration())
	}
}

func TestCopyConfigNormalised(t *testing.T) {
	_, norm, err := strategies.ParseConfig("COPY_TRADE", json.RawMessage(`{"targetAddress":" 0x00000000000000000000000000000000000000aB ","sizingMode":"Proportional","proportionPct":"50.0","copySells":false,"tokenFilter":["20","3"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"targetAddress":"0x00000000000000000000000000000000000000AB","sizingMode":"proportional","proportionPct":50,"copySells":false,"tokenFilter":["20","3"]}`
	if string(norm) != want {
		t.Fatalf("stored %s, want %s", norm, want)
	}
}

// TestFloatNoiseNormalised: numbers an agent computed in binary floating
// point (0.02 + 6 × 0.001 = 0.026000000000000002) are taken as the valid
// value next to them and stored so; numbers really too precise are
// refused, naming the valid values around them.
func TestFloatNoiseNormalised(t *testing.T) {
	c, norm, err := strategies.ParseConfig("PRICE_ALERT", json.RawMessage(
		`{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.026000000000000002,"size":10.000000000000002}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.TriggerPrice.String() != "0.026" || c.Size.String() != "10" {
		t.Fatalf("triggerPrice %s size %s", c.TriggerPrice, c.Size)
	}
	want := `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.026,"size":10,"orderType":"MARKET"}`
	if string(norm) != want {
		t.Fatalf("stored %s, want %s", norm, want)
	}
	rc, _, err := strategies.ParseConfig("RECURRING_BUY", json.RawMessage(
		`{"tokenId":"1","amountPerInterval":5.300000000000001,"interval":"1h","priceLimit":0.30000000000000004,"maxTotalAmount":"20.0000000"}`))
	if err != nil || rc.AmountPerInterval.String() != "5.3" || rc.PriceLimit.String() != "0.3" || rc.MaxTotalAmount.String() != "20" {
		t.Fatalf("%+v %v", rc, err)
	}
	budget := strategies.D(decimal.RequireFromString("19.999999999999996"))
	if err := strategies.CheckMaxBudget(budget); err != nil || budget.String() != "20" {
		t.Fatalf("maxBudget %s %v", budget, err)
	}

	for _, tc := range []struct{ typ, config, code, names string }{
		{"PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.0261234567,"size":10}`,
			errs.CodeInvalidTriggerPrice, "0.026123 and 0.026124"},
		{"PRICE_ALERT", `{"tokenId":"1","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.3,"size":10.005}`,
			errs.CodeInvalidStrategyAmount, "10 and 10.01"},
		{"BUY_LOW_SELL_HIGH", `{"tokenId":"1","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5.125}`,
			errs.CodeInvalidStrategyAmount, "5.12 and 5.13"},
		{"RECURRING_BUY", `{"tokenId":"1","amountPerInterval":5.0000001,"interval":"1h"}`,
			errs.CodeInvalidStrategyAmount, "5 and 5.000001"},
	} {
		_, _, err := strategies.ParseConfig(tc.typ, json.RawMessage(tc.config))
		if errs.CodeOf(err) != tc.code || !strings.Contains(errs.PublicMessage(err), tc.names) {
			t.Errorf("%s %s: %v (code %s), want %s naming %s", tc.typ, tc.config, err, errs.CodeOf(err), tc.code, tc.names)
		}
	}
	if err := strategies.CheckMaxBudget(strategies.D(decimal.RequireFromString("20.0000004"))); errs.CodeOf(err) != errs.CodeInvalidMaxBudget {
		t.Errorf("maxBudget 20.0000004: %v", err)
	}
}
