package redact_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

func TestSecrets(t *testing.T) {
	cases := map[string]struct {
		in      string
		secrets []string
		want    string
	}{
		// A key secret "s" redacted inside words would turn Razorpay's text into
		// "The id provided doe[redacted] not exi[redacted]t".
		"ShortSecretInsideWordsIsLeftAlone": {"The id provided does not exist", []string{"s"},
			"The id provided does not exist"},
		"ShortSecretAsAWordIsRemoved": {"token k1:s1 refused", []string{"k1", "s1"},
			"token [redacted]:[redacted] refused"},
		"URLSchemeIsNotASecret": {`Get "https://api.razorpay.com/v1/orders/order_T3st": no such host`, []string{"s"},
			`Get "https://api.razorpay.com/v1/orders/order_T3st": no such host`},
		"EchoedHeader": {"Authorization: token 4f1e2d3c4b5a697:9a8b7c6d5e4f3a2 was refused",
			[]string{"4f1e2d3c4b5a697", "9a8b7c6d5e4f3a2"}, "Authorization: token [redacted]:[redacted] was refused"},
		"QuotedAndAtTheEnds": {`"rzp-secret-0123456789ab"=rzp-secret-0123456789ab`, []string{"rzp-secret-0123456789ab"},
			`"[redacted]"=[redacted]`},
		"LongerSecretFirst": {"basic QUJDOkRFRg== and ABC", []string{"ABC", "QUJDOkRFRg=="},
			"basic [redacted] and [redacted]"},
		"SecretOfPunctuationOnly":          {"a-!!-b", []string{"!!"}, "a-[redacted]-b"},
		"ShortGluedToAWordIsNotThisSecret": {"xwh_012 wh_012", []string{"wh_012"}, "xwh_012 [redacted]"},
		// A secret of MinLength or more is the secret wherever it stands: a word holding it
		// holds the secret, and no ordinary word does.
		"LongIsRemovedEvenGlued": {"xwhsec_0123456789y whsec_0123456789", []string{"whsec_0123456789"},
			"x[redacted]y [redacted]"},
		"NonASCIINeighbours":     {"ésecreté secret", []string{"secret"}, "ésecreté [redacted]"},
		"RepeatedAndOverlapping": {"aa aaa aa", []string{"aa"}, "[redacted] aaa [redacted]"},
		"EmptySecretIgnored":     {"nothing to hide", []string{""}, "nothing to hide"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := redact.Secrets(c.in, c.secrets...); got != c.want {
				t.Errorf("Secrets(%q, %q) = %q, want %q", c.in, c.secrets, got, c.want)
			}
		})
	}
}
