package main

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
)

// passphraseIterations is the PBKDF2-SHA256 work factor of an album's
// passphrase, as OWASP advises.
const passphraseIterations = 600_000

// Protect sets the passphrase that visitors of an album must give to see
// it, replacing any it had. An assistant never sees the passphrase: over
// MCP and function calling the person enters it on a page of the
// explorer.
//
//   - album: The album to protect.
//   - passphrase: The passphrase visitors will give.
//
// Returns whether the album had a passphrase before.
//
//tool:method id=album.protect op=write destructive=false permission="edit albums"
//tool:entity album op=update
//tool:input passphrase sensitive length=8..128
//tool:output replaced
func (m *Manager) Protect(ctx context.Context, album *Album, passphrase string) (bool, error) {
	return m.store.SetPassphrase(ctx, album, passphrase)
}

// SetPassphrase keeps a salted PBKDF2 hash of passphrase as album a's,
// and reports whether a had one.
func (s *Store) SetPassphrase(ctx context.Context, a *Album, passphrase string) (bool, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	hash, err := pbkdf2.Key(sha256.New, passphrase, salt, passphraseIterations, 32)
	if err != nil {
		return false, err
	}
	var replaced bool
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := s.lockAlbum(ctx, tx, a.ID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE album_passphrases SET salt = $1, hash = $2 WHERE album_id = $3`,
			hex.EncodeToString(salt), hex.EncodeToString(hash), a.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			replaced = true
			return nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO album_passphrases (album_id, salt, hash) VALUES ($1, $2, $3)`,
			a.ID, hex.EncodeToString(salt), hex.EncodeToString(hash))
		return err
	})
	return replaced, err
}

// PassphraseMatches reports whether passphrase is album a's; false when a
// has none.
func (s *Store) PassphraseMatches(ctx context.Context, a *Album, passphrase string) (bool, error) {
	var saltHex, hashHex string
	err := s.db.QueryRowContext(ctx, `SELECT salt, hash FROM album_passphrases WHERE album_id = $1`, a.ID).Scan(&saltHex, &hashHex)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	salt, err1 := hex.DecodeString(saltHex)
	want, err2 := hex.DecodeString(hashHex)
	if err := errors.Join(err1, err2); err != nil {
		return false, err
	}
	got, err := pbkdf2.Key(sha256.New, passphrase, salt, passphraseIterations, len(want))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
