// Package contracts holds the sandbox venue's Solidity contracts (src/), their
// compiled artefacts (build/) and the Go bindings generated from them.
//
// Everything here is reproducible byte for byte: compile.js runs the solc-js
// version pinned in package.json/package-lock.json with fixed standard-JSON
// settings, and abigen (from the go-ethereum module in go.mod) turns the ABI
// and bytecode into the *.go bindings. To regenerate (needs node and npm):
//
//	(cd venue/contracts && npm ci) && go generate ./venue/contracts
//
// and `git diff --exit-code venue/contracts` shows that nothing changed.
// TestGeneratedBindingsReproducible does the same comparison when node and
// node_modules are present.
package contracts

//go:generate node compile.js
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/Collateral.abi --bin build/Collateral.bin --pkg contracts --type Collateral --out collateral.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/ConditionalTokens.abi --bin build/ConditionalTokens.bin --pkg contracts --type ConditionalTokens --out conditional_tokens.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/DepositWallet.abi --bin build/DepositWallet.bin --pkg contracts --type DepositWallet --out deposit_wallet.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/DepositWalletFactory.abi --bin build/DepositWalletFactory.bin --pkg contracts --type DepositWalletFactory --out deposit_wallet_factory.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/Exchange.abi --bin build/Exchange.bin --pkg contracts --type Exchange --out exchange.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/NegRiskAdapter.abi --bin build/NegRiskAdapter.bin --pkg contracts --type NegRiskAdapter --out neg_risk_adapter.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/ProxyWallet.abi --bin build/ProxyWallet.bin --pkg contracts --type ProxyWallet --out proxy_wallet.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/ProxyWalletFactory.abi --bin build/ProxyWalletFactory.bin --pkg contracts --type ProxyWalletFactory --out proxy_wallet_factory.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/Safe.abi --bin build/Safe.bin --pkg contracts --type Safe --out safe.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/SafeFactory.abi --bin build/SafeFactory.bin --pkg contracts --type SafeFactory --out safe_factory.go
//go:generate go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --abi build/SafeProxy.abi --bin build/SafeProxy.bin --pkg contracts --type SafeProxy --out safe_proxy.go
