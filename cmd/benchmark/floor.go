package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// The floor server is what intake cannot beat on this machine: a webhook over loopback HTTP,
// HMAC-SHA256 over the raw body compared in constant time, one prepared INSERT of the inbox
// row into the same table through the same driver, and a fixed answer; nothing else (no
// parsing, no logging, no metrics). The benchmark runs it as its own process (this binary,
// `benchmark floor`), as the daemon runs as its own, so both compete with the load generator
// alike.

// floorSecretEnv names the environment variable carrying the webhook secret to the floor
// server and the daemon (never on a command line).
const floorSecretEnv = "RPE_BENCH_WEBHOOK_SECRET"

// runFloor serves the floor until SIGTERM or SIGINT: `floor --driver D --dsn DSN --listen ADDR`.
// It prints "floor on ADDR" once listening.
func runFloor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	driver := fs.String("driver", store.DriverMySQL, "store driver")
	dsn := fs.String("dsn", "", "database (migrated)")
	listen := fs.String("listen", "127.0.0.1:0", "address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	secret := os.Getenv(floorSecretEnv)
	if secret == "" {
		return fmt.Errorf("floor: %s is not set", floorSecretEnv)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := store.Open(ctx, *driver, *dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	query := inboxInsert
	if *driver == store.DriverSQLite {
		query += ` ON CONFLICT (account_id, event_id) DO NOTHING`
	}
	stmt, err := s.SQL().PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: &floor{secret: []byte(secret), stmt: stmt, driver: *driver},
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	fmt.Printf("floor on %s\n", l.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type floor struct {
	secret []byte
	stmt   *sql.Stmt
	driver string
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "body", http.StatusRequestEntityTooLarge)
		return
	}
	sig, err := hex.DecodeString(r.Header.Get("X-Razorpay-Signature"))
	mac := hmac.New(sha256.New, f.secret)
	mac.Write(body)
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		http.Error(w, "signature", http.StatusUnauthorized)
		return
	}
	eventID := strings.TrimSpace(r.Header.Get("X-Razorpay-Event-Id"))
	if eventID == "" {
		http.Error(w, "event id", http.StatusBadRequest)
		return
	}
	res, err := f.stmt.ExecContext(r.Context(), inboxArgs(f.driver, eventID, "", body, time.Now())...)
	var me *mysql.MySQLError
	duplicate := errors.As(err, &me) && me.Number == 1062
	if err == nil && f.driver == store.DriverSQLite {
		n, rerr := res.RowsAffected()
		err, duplicate = rerr, rerr == nil && n == 0
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case duplicate:
		_, _ = io.WriteString(w, `{"status":"duplicate"}`+"\n")
	case err != nil:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":"store unavailable, retry later"}`+"\n")
	default:
		_, _ = io.WriteString(w, `{"status":"accepted"}`+"\n")
	}
}
