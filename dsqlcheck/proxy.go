package dsqlcheck

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// HookPGX makes every connection made with cfg go through the checker,
// which then refuses, under WithReject, what DSQL refuses, with DSQL's
// SQLSTATE and message in a *pgconn.PgError, as the database/sql wrapper
// does: set it on the config a pgx.Conn, a pgxpool or pgx's stdlib driver
// connects with (pgx.ConnConfig.Config, pgxpool.Config.ConnConfig.Config).
// TLS, when the config asks for it, is spoken by the checker to the
// server; the connection between the driver and the checker stays in the
// process.
func (c *Checker) HookPGX(cfg *pgconn.Config) {
	base := cfg.DialFunc
	if base == nil {
		d := &net.Dialer{KeepAlive: 5 * time.Minute}
		base = d.DialContext
	}
	up := upstreamOf(cfg)
	cfg.TLSConfig = nil // the driver's link to the checker is in the process
	for _, fb := range cfg.Fallbacks {
		fb.TLSConfig = nil
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		server, err := base(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if server, err = up.secure(ctx, server); err != nil {
			return nil, err
		}
		client, end := net.Pipe()
		go c.newSession(end, server).run()
		return client, nil
	}
}

// upstream is how the checker speaks to the server: TLS, and whether
// plain text is acceptable when the server has no TLS.
type upstream struct {
	tls   *tls.Config
	plain bool
}

// upstreamOf reads how a config speaks to the server: the first TLS
// configuration among its attempts, and whether one is in plain text.
func upstreamOf(cfg *pgconn.Config) *upstream {
	up := &upstream{}
	take := func(t *tls.Config) {
		if t == nil {
			up.plain = true
		} else if up.tls == nil {
			up.tls = t
		}
	}
	take(cfg.TLSConfig)
	for _, fb := range cfg.Fallbacks {
		take(fb.TLSConfig)
	}
	return up
}

// secure starts TLS on a new server connection when asked to.
func (u *upstream) secure(ctx context.Context, conn net.Conn) (net.Conn, error) {
	if u.tls == nil {
		return conn, nil
	}
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
		defer conn.SetDeadline(time.Time{})
	}
	req := make([]byte, 8)
	binary.BigEndian.PutUint32(req, 8)
	binary.BigEndian.PutUint32(req[4:], 80877103) // SSLRequest
	answer := make([]byte, 1)
	if _, err := conn.Write(req); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.Read(answer); err != nil {
		conn.Close()
		return nil, err
	}
	if answer[0] != 'S' {
		if u.plain {
			return conn, nil
		}
		conn.Close()
		return nil, errors.New("dsqlcheck: the server refused TLS")
	}
	tc := tls.Client(conn, u.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

func (c *Checker) newSession(client, server net.Conn) *wireSession {
	return &wireSession{
		c: c, client: client, server: server,
		be:      pgproto3.NewBackend(client, client),
		fe:      pgproto3.NewFrontend(server, server),
		markers: map[int]*mark{},
	}
}

// Proxy serves the PostgreSQL protocol to clients in any language,
// checking their statements on the way to the server, as HookPGX does for
// pgx in the process.
type Proxy struct {
	c    *Checker
	dial func(ctx context.Context) (net.Conn, error)
	// Logf, when set, hears of connections the server refused.
	Logf func(format string, args ...any)

	mu       sync.Mutex
	ln       net.Listener
	sessions map[*wireSession]bool
	closed   bool
	wg       sync.WaitGroup
}

// NewProxy returns a proxy to the server named, in any form pgx
// parses (postgres://host:port/?sslmode=..., or host=/run/postgresql for
// a unix socket). Only the address and TLS are used: the user, database
// and password are each client's own, relayed to the server.
func (c *Checker) NewProxy(server string) (*Proxy, error) {
	cfg, err := pgconn.ParseConfig(server)
	if err != nil {
		return nil, fmt.Errorf("dsqlcheck: upstream: %w", err)
	}
	up := upstreamOf(cfg)
	dialer := cfg.DialFunc
	network, addr := networkAddress(cfg.Host, cfg.Port)
	return &Proxy{c: c, sessions: map[*wireSession]bool{}, dial: func(ctx context.Context) (net.Conn, error) {
		conn, err := dialer(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return up.secure(ctx, conn)
	}}, nil
}

// networkAddress is where pgconn would connect for host and port.
func networkAddress(host string, port uint16) (network, address string) {
	if strings.HasPrefix(host, "/") {
		return "unix", filepath.Join(host, ".s.PGSQL."+strconv.Itoa(int(port)))
	}
	return "tcp", net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// Serve accepts clients on ln until Close; it returns nil after Close.
func (p *Proxy) Serve(ln net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return nil
	}
	p.ln = ln
	p.mu.Unlock()
	for {
		client, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return nil
			}
			return err
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	server, err := p.dial(ctx)
	cancel()
	if err != nil {
		if p.Logf != nil {
			p.Logf("dsqlcheck: upstream: %v", err)
		}
		client.Close()
		return
	}
	s := p.c.newSession(client, server)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		client.Close()
		server.Close()
		return
	}
	p.sessions[s] = true
	p.mu.Unlock()
	s.run()
	p.mu.Lock()
	delete(p.sessions, s)
	p.mu.Unlock()
}

// Sessions is the number of client connections being served.
func (p *Proxy) Sessions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sessions)
}

// Close stops accepting, closes every session (client and server side)
// and returns when all have ended.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	var err error
	if p.ln != nil {
		err = p.ln.Close()
	}
	for s := range p.sessions {
		s.client.Close()
		s.server.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}
