// Package scram computes, formats and parses SCRAM-SHA-256 password
// verifiers (RFC 5802, RFC 7677) in PostgreSQL's text form
//
//	SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
//
// with salt and keys in standard base64. A verifier lets a server check a
// client's proof without ever holding the password.
//
// Glossary: SaltedPassword is PBKDF2-HMAC-SHA-256 of the password;
// ClientKey and ServerKey are HMACs of SaltedPassword with the strings
// "Client Key" and "Server Key"; StoredKey is SHA-256 of ClientKey.
//
// Invariant: a Verifier never holds the password or ClientKey.
//
// scram imports only the standard library.
package scram
