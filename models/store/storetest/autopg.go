package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// When ATS_TEST_DATABASE_URL is unset but PostgreSQL's server binaries are
// installed, the harness starts one throwaway cluster per test process, so
// the README's plain `go test ./...` exercises both databases on a developer
// machine too. The postmaster is a child that dies with the test process
// (SIGKILL on parent death); its data lives in a temp dir.
var (
	autoOnce sync.Once
	autoURL  string
	autoErr  error
)

func autoPostgres() (string, error) {
	autoOnce.Do(func() { autoURL, autoErr = startAutoPostgres() })
	return autoURL, autoErr
}

func findPGBin() (string, error) {
	dirs := []string{}
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	dirs = append(dirs, "/usr/local/bin", "/usr/local/pgsql/bin")
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(m) > 0 {
		dirs = append(dirs, m...)
	}
	for _, d := range dirs {
		if fileExists(filepath.Join(d, "initdb")) && fileExists(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, postgres) found")
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func startAutoPostgres() (string, error) {
	bin, err := findPGBin()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "ats-test-pg-")
	if err != nil {
		return "", err
	}
	// PostgreSQL refuses to run as root: run it as the postgres user then.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", err
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return "", fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that forked the child exits; this
		// goroutine keeps its thread for the life of the process.
		runtime.LockOSThread()
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-k", dir, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
		cmd.Stdout, cmd.Stderr = nil, nil
		started <- cmd.Start()
		select {}
	}()
	if err := <-started; err != nil {
		return "", fmt.Errorf("start postgres: %w", err)
	}
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		db, err := sql.Open("pgx", url)
		if err == nil {
			err = db.PingContext(ctx)
			_ = db.Close()
		}
		if err == nil {
			return url, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("postgres did not accept connections: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
