package live

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"

	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/cache"
	"github.com/operator-framework/operator-registry/pkg/server"
	"google.golang.org/grpc"
	health "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// CatalogServer serves a file-based catalog over gRPC with operator-registry's own code, as
// `opm serve` does (cmd/opm/serve: the catalog's cache, then the registry, health and
// reflection services). A CatalogSource reaches it with spec.address.
type CatalogServer struct {
	// Address is host:port, for a CatalogSource's spec.address.
	Address string

	mu     sync.Mutex
	grpc   *grpc.Server
	store  cache.Cache
	tmp    string
	served chan error
}

// ServeCatalog serves the file-based catalog fbc (a directory's files, as `opm serve DIR`
// reads them) on a free port of the loopback interface.
func ServeCatalog(ctx context.Context, fbc fs.FS) (*CatalogServer, error) {
	s := &CatalogServer{}
	if err := s.serve(ctx, fbc, "127.0.0.1:0"); err != nil {
		return nil, err
	}
	return s, nil
}

// Publish replaces the catalog with a new revision, as a registry pod restarted on a new
// index image does: the server stops (closing OLM's connection), and serves the new revision
// on the same address. OLM's catalog operator sees the connection come back and reads the
// catalog again.
func (s *CatalogServer) Publish(ctx context.Context, fbc fs.FS) error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.serve(ctx, fbc, s.Address)
}

// serve builds the catalog's cache and serves it at address.
func (s *CatalogServer) serve(ctx context.Context, fbc fs.FS, address string) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tmp, err = os.MkdirTemp("", "olm-render-live-catalog-"); err != nil {
		return fmt.Errorf("creating the catalog's cache directory: %w", err)
	}
	if s.store, err = cache.New(s.tmp); err != nil {
		return fmt.Errorf("creating the catalog's cache: %w", err)
	}
	if err := cache.LoadOrRebuild(ctx, s.store, fbc); err != nil {
		return errors.Join(fmt.Errorf("building the catalog's cache: %w", err), s.closeStore())
	}
	lis, err := net.Listen("tcp", address)
	if err != nil {
		return errors.Join(fmt.Errorf("listening on %s: %w", address, err), s.closeStore())
	}
	s.Address = lis.Addr().String()
	s.grpc = grpc.NewServer()
	api.RegisterRegistryServer(s.grpc, server.NewRegistryServer(s.store))
	api.RegisterExperimentalRegistryServer(s.grpc, server.NewExperimentalRegistryServer(s.store))
	health.RegisterHealthServer(s.grpc, server.NewHealthServer())
	reflection.Register(s.grpc)
	s.served = make(chan error, 1)
	go func(g *grpc.Server, done chan<- error) { done <- g.Serve(lis) }(s.grpc, s.served)
	return nil
}

// Stop stops serving.
func (s *CatalogServer) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grpc == nil {
		return nil
	}
	s.grpc.Stop()
	s.grpc = nil
	err := <-s.served
	if errors.Is(err, grpc.ErrServerStopped) {
		err = nil
	}
	return errors.Join(err, s.closeStore())
}

// closeStore closes the cache and removes its directory.
func (s *CatalogServer) closeStore() error {
	var err error
	if s.store != nil {
		err = s.store.Close()
		s.store = nil
	}
	return errors.Join(err, os.RemoveAll(s.tmp))
}
