package razorpay_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// compactSamples returns every sample payload as Razorpay sends it (compact single-line JSON,
// spec/razorpay.md §1.2), keyed by file name without ".json", in name order.
func compactSamples(b *testing.B) ([]string, map[string][]byte) {
	b.Helper()
	out := map[string][]byte{}
	var names []string
	for name := range sampleSignatures {
		var buf bytes.Buffer
		if err := json.Compact(&buf, readSample(b, name)); err != nil {
			b.Fatal(err)
		}
		short := strings.TrimSuffix(name, ".json")
		out[short] = buf.Bytes()
		names = append(names, short)
	}
	sort.Strings(names)
	return names, out
}

// BenchmarkParseEvent decodes each sample webhook body (parsing is a large share of
// intake CPU).
func BenchmarkParseEvent(b *testing.B) {
	eachSample(b, func(body []byte) error { _, err := razorpay.ParseEvent(body); return err })
}

// BenchmarkPeekEvent reads only what intake stores (event, account, created_at, entity ids).
func BenchmarkPeekEvent(b *testing.B) {
	eachSample(b, func(body []byte) error { _, err := razorpay.PeekEvent(body); return err })
}

// eachSample runs decode over each compact sample as a sub-benchmark.
func eachSample(b *testing.B, decode func([]byte) error) {
	names, bodies := compactSamples(b)
	for _, name := range names {
		body := bodies[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifySignatureCompact verifies a compact payment.captured body against one secret,
// the common case.
func BenchmarkVerifySignatureCompact(b *testing.B) {
	_, bodies := compactSamples(b)
	body := bodies["payment.captured"]
	sig := razorpay.Sign(testSecret, body)
	secrets := []string{testSecret}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := razorpay.VerifySignature(body, sig, secrets); err != nil {
			b.Fatal(err)
		}
	}
}
