package razorpay

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// Signature verification errors returned by VerifySignature. Compare with errors.Is.
var (
	// ErrMissingSignature means the X-Razorpay-Signature header was absent or empty
	// (Razorpay sends none when the webhook has no secret, spec/razorpay.md §1.2).
	ErrMissingSignature = errors.New("razorpay: missing webhook signature")
	// ErrInvalidSignature means the signature matched none of the configured secrets,
	// or was not 64 hex characters.
	ErrInvalidSignature = errors.New("razorpay: invalid webhook signature")
	// ErrNoSecret means no non-empty webhook secret was configured, so nothing can be verified.
	// It is a configuration fault: an empty HMAC key would let anyone sign.
	ErrNoSecret = errors.New("razorpay: no webhook secret configured")
)

// Sign returns the webhook signature Razorpay sends in X-Razorpay-Signature: the lowercase hex
// HMAC-SHA256 of body keyed with secret (UTF-8 bytes), spec/razorpay.md §1.3. The body must be
// the raw bytes as sent; re-encoded JSON does not verify.
func Sign(secret string, body []byte) string {
	return hex.EncodeToString(mac(secret, body))
}

func mac(secret string, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(body)
	return h.Sum(nil)
}

// VerifySignature checks signature (hex, from X-Razorpay-Signature) over the raw body against
// each non-empty secret with hmac.Equal, so that an old and a new secret both verify during
// rotation (spec/razorpay.md §1.3). Empty secrets are skipped and never accept anything.
//
// Errors, checked in this order: no non-empty secret → ErrNoSecret; signature "" →
// ErrMissingSignature; not hex or no secret matches → ErrInvalidSignature.
func VerifySignature(body []byte, signature string, secrets []string) error {
	usable := 0
	for _, s := range secrets {
		if s != "" {
			usable++
		}
	}
	if usable == 0 {
		return ErrNoSecret
	}
	if signature == "" {
		return ErrMissingSignature
	}
	got, err := hex.DecodeString(signature)
	if err != nil || len(got) != sha256.Size {
		return ErrInvalidSignature
	}
	ok := false
	for _, s := range secrets {
		if s == "" {
			continue
		}
		// Every secret is tried so the time taken does not depend on which one matched.
		if hmac.Equal(got, mac(s, body)) {
			ok = true
		}
	}
	if !ok {
		return ErrInvalidSignature
	}
	return nil
}
