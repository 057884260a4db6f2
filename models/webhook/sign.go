package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix marks a signing secret, as the specification serializes
// symmetric secrets: "whsec_" and the base64 of its bytes.
const SecretPrefix = "whsec_"

// secretBytes is the length of the secrets made here: the specification
// asks for 24 to 64 bytes.
const secretBytes = 32

// NewSecret makes a new signing secret.
func NewSecret() string {
	b := make([]byte, secretBytes)
	rand.Read(b) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// key is the HMAC key of a secret: its base64-decoded bytes.
func key(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("a signing secret is %s and base64: %w", SecretPrefix, err)
	}
	return b, nil
}

// Sign returns the signature of one attempt with one secret: "v1," and
// the base64 HMAC-SHA256 of "id.timestamp.body".
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, at.Unix(), 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Signature is the webhook-signature header of one attempt: a signature
// with each secret, space-separated (a rotation's new secret first).
func Signature(secrets []string, id string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		var err error
		if sigs[i], err = Sign(s, id, at, body); err != nil {
			return "", err
		}
	}
	return strings.Join(sigs, " "), nil
}
