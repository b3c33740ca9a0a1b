package razorpay_test

import (
	"errors"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

const (
	testSecret    = "test_webhook_secret"
	knownBody     = `{"entity":"event","event":"payment.captured"}`
	knownAnswerHS = "a438afc6ce7006ee9db518386b03fa11af0ca64eee8a8978885697e4065e9581"
)

// sampleSignatures is the table of reference/razorpay-payloads/README.md, repeated here so
// that an edit to either is noticed.
var sampleSignatures = map[string]string{
	"payment.authorized.json":                  "1cf8b3ea078fe555020599e2d1f7059c9e3ebf34895d86b02e1c56b2b02f54dc",
	"payment.captured.json":                    "f5032f7e180955debd5c8c8d8635141d61da852e8af51bf84ff71c6a7bc3cd46",
	"payment.captured--notes-invoice.json":     "a02e30b648f87adf2c52a5aeee251710e9f5fc44ca6fc4e13dcef1b8aaaff15d",
	"payment.captured--international-usd.json": "263f65faf2719c129b07f9e989d39865b95624dd7619380eb7f7a1ea0bc7eaab",
	"payment.captured--upi.json":               "facaf5c026072b12ae330dd7a4f45b1492511e6f07bac09866f3937e8d5793f0",
	"payment.failed.json":                      "1a0c667c21df430cc937dd230f4cb778bef18a1fe171792293b90a3c6e782de3",
	"order.paid.json":                          "c7e6eef8c0e4f32d98c6a621ddc4ba0d9482e0c65c22ac273580cfd966d61439",
	"refund.created.json":                      "f8045927479e2ec9041e95b119518c185069007387251cd972d501ebccafffaf",
	"refund.processed.json":                    "44f9f34a97c102b281b7d9a312a04d7aa5edd234b997c65e515747d5c93b35a1",
	"refund.failed.json":                       "ca2654d1bd8bf6adcdb5035cf45d714b6106697a280df3594919c88fad97464e",
	"payment_link.paid.json":                   "7ed02fdd712d45a75a16b00d48dfa264adc0c55dd2b3af3308b15d8a0c227703",
	"settlement.processed.json":                "bfa54eb481cb1c169f1b26c995467d1ca4a216f5e74d4f4c87abfb4c84410fd0",
	"payment.dispute.created.json":             "858c053b3396ecfcc6c1ffa6aa9e08004401da5d0b75dc3710461f7922f9ecbe",
}

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), name))
	if err != nil {
		t.Fatalf("read sample: %v", err)
	}
	return b
}

func TestSignKnownAnswer(t *testing.T) {
	if got := razorpay.Sign(testSecret, []byte(knownBody)); got != knownAnswerHS {
		t.Fatalf("Sign = %s, want %s (spec/razorpay.md §1.3)", got, knownAnswerHS)
	}
	if err := razorpay.VerifySignature([]byte(knownBody), knownAnswerHS, []string{testSecret}); err != nil {
		t.Fatalf("VerifySignature: %v", err)
	}
}

func TestReadmeTableMatches(t *testing.T) {
	readme := readSample(t, "README.md")
	row := regexp.MustCompile("(?m)^\\| `([^`]+\\.json)` \\| `[^`]+` \\| `([0-9a-f]{64})` \\|")
	found := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		found[m[1]] = m[2]
	}
	if len(found) != len(sampleSignatures) {
		t.Fatalf("README table has %d rows, test table %d", len(found), len(sampleSignatures))
	}
	for name, sig := range sampleSignatures {
		if found[name] != sig {
			t.Errorf("%s: README says %q, test table %q", name, found[name], sig)
		}
	}
	files, err := filepath.Glob(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), "*.json"))
	if err != nil || len(files) != len(sampleSignatures) {
		t.Fatalf("%d sample files, %d signatures (err %v)", len(files), len(sampleSignatures), err)
	}
}

func TestEverySampleVerifies(t *testing.T) {
	for name, sig := range sampleSignatures {
		t.Run(name, func(t *testing.T) {
			body := readSample(t, name)
			if got := razorpay.Sign(testSecret, body); got != sig {
				t.Errorf("Sign = %s, want %s", got, sig)
			}
			if err := razorpay.VerifySignature(body, sig, []string{testSecret}); err != nil {
				t.Errorf("VerifySignature: %v", err)
			}
		})
	}
}

func TestVerifySignatureOutcomes(t *testing.T) {
	body := readSample(t, "payment.captured.json")
	sig := sampleSignatures["payment.captured.json"]

	t.Run("FlippedBodyByteIsInvalid", func(t *testing.T) {
		for _, i := range []int{0, len(body) / 2, len(body) - 1} {
			b := append([]byte(nil), body...)
			b[i] ^= 0x01
			if err := razorpay.VerifySignature(b, sig, []string{testSecret}); !errors.Is(err, razorpay.ErrInvalidSignature) {
				t.Errorf("byte %d flipped: err = %v, want ErrInvalidSignature", i, err)
			}
		}
	})
	t.Run("FlippedSignatureCharIsInvalid", func(t *testing.T) {
		bad := []byte(sig)
		bad[10] = map[bool]byte{true: 'a', false: 'b'}[bad[10] != 'a']
		if err := razorpay.VerifySignature(body, string(bad), []string{testSecret}); !errors.Is(err, razorpay.ErrInvalidSignature) {
			t.Errorf("err = %v, want ErrInvalidSignature", err)
		}
	})
	t.Run("RotationAcceptsOldAndNew", func(t *testing.T) {
		secrets := []string{"new_secret_2026", testSecret}
		if err := razorpay.VerifySignature(body, sig, secrets); err != nil {
			t.Errorf("old secret: %v", err)
		}
		if err := razorpay.VerifySignature(body, razorpay.Sign("new_secret_2026", body), secrets); err != nil {
			t.Errorf("new secret: %v", err)
		}
		if err := razorpay.VerifySignature(body, razorpay.Sign("third", body), secrets); !errors.Is(err, razorpay.ErrInvalidSignature) {
			t.Errorf("unknown secret: err = %v, want ErrInvalidSignature", err)
		}
	})
	t.Run("OnlyEmptySecretsIsNoSecret", func(t *testing.T) {
		for _, secrets := range [][]string{nil, {}, {""}, {"", ""}} {
			if err := razorpay.VerifySignature(body, sig, secrets); !errors.Is(err, razorpay.ErrNoSecret) {
				t.Errorf("%q: err = %v, want ErrNoSecret", secrets, err)
			}
		}
	})
	t.Run("EmptyKeySignatureIsRejected", func(t *testing.T) {
		forged := razorpay.Sign("", body)
		if err := razorpay.VerifySignature(body, forged, []string{"", testSecret}); !errors.Is(err, razorpay.ErrInvalidSignature) {
			t.Errorf("err = %v, want ErrInvalidSignature", err)
		}
	})
	t.Run("MissingSignature", func(t *testing.T) {
		if err := razorpay.VerifySignature(body, "", []string{testSecret}); !errors.Is(err, razorpay.ErrMissingSignature) {
			t.Errorf("err = %v, want ErrMissingSignature", err)
		}
	})
	t.Run("MalformedSignatureIsInvalid", func(t *testing.T) {
		for _, s := range []string{"zz", sig[:62], sig + "00", strings.Repeat("g", 64), " " + sig[1:]} {
			if err := razorpay.VerifySignature(body, s, []string{testSecret}); !errors.Is(err, razorpay.ErrInvalidSignature) {
				t.Errorf("%q: err = %v, want ErrInvalidSignature", s, err)
			}
		}
	})
}

func TestEscapedBodyVerifiesOverRawBytesAndParses(t *testing.T) {
	// PHP-style escapes (spec/razorpay.md §1.1): the signature covers these exact bytes.
	body := []byte(`{"entity":"event","account_id":"acc_T3stAcc0unt001","event":"payment.captured","contains":["payment"],` +
		`"payload":{"payment":{"entity":{"id":"pay_T3stEscape0001","entity":"payment","amount":100,"currency":"INR",` +
		`"description":"Tom \u0026 Jerry","notes":{"url":"https:\/\/erp.example.com\/app\/x"},"captured":true}}},"created_at":1768453265}`)
	sig := razorpay.Sign(testSecret, body)
	if err := razorpay.VerifySignature(body, sig, []string{testSecret}); err != nil {
		t.Fatalf("VerifySignature: %v", err)
	}
	e, err := razorpay.ParseEvent(body)
	if err != nil {
		t.Fatalf("ParseEvent: %v", err)
	}
	if e.Payment.Description != "Tom & Jerry" || e.Payment.Notes["url"] != "https://erp.example.com/app/x" {
		t.Fatalf("decoded %q / %q", e.Payment.Description, e.Payment.Notes["url"])
	}
}

func BenchmarkVerifySignature(b *testing.B) {
	body := readSample(b, "payment_link.paid.json")
	sig := sampleSignatures["payment_link.paid.json"]
	secrets := []string{"new_secret_2026", testSecret}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := razorpay.VerifySignature(body, sig, secrets); err != nil {
			b.Fatal(err)
		}
	}
}
