package clustertest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// frontendName is the name on the frontend's certificate, the Kubernetes
// Service's name in deployments/ (clients verify it, as ats does with
// --temporal-tls-server-name).
const frontendName = "temporal-frontend"

// writeCerts makes a CA, the frontend's server certificate and a client
// certificate in dir, as deployments/compose/secrets/generate.sh does.
func writeCerts(dir string) (Certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Certs{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ats test Temporal CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return Certs{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Certs{}, err
	}
	c := Certs{CA: filepath.Join(dir, "ca.pem"), ServerName: frontendName}
	if err := writePEM(c.CA, "CERTIFICATE", caDER); err != nil {
		return Certs{}, err
	}
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, dns []string, ips []net.IP, certPath, keyPath string) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: dns, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return err
		}
		if err := writePEM(certPath, "CERTIFICATE", der); err != nil {
			return err
		}
		return writePEM(keyPath, "EC PRIVATE KEY", kder)
	}
	c.serverCert, c.serverKey = filepath.Join(dir, "frontend.pem"), filepath.Join(dir, "frontend-key.pem")
	if err := leaf(2, frontendName, x509.ExtKeyUsageServerAuth, []string{frontendName, "localhost"},
		[]net.IP{net.IPv4(127, 0, 0, 1)}, c.serverCert, c.serverKey); err != nil {
		return Certs{}, err
	}
	c.ClientCert, c.ClientKey = filepath.Join(dir, "ats.pem"), filepath.Join(dir, "ats-key.pem")
	if err := leaf(3, "ats", x509.ExtKeyUsageClientAuth, nil, nil, c.ClientCert, c.ClientKey); err != nil {
		return Certs{}, err
	}
	return c, nil
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
