package contracts

import (
	"embed"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Sandbox-only addresses that the network package has no field for. The
// proxy-wallet and deposit-wallet implementations sit at their mainnet
// addresses; the Safe singleton address is the sandbox's own (it is part of
// the Safe init code, hence of network.SandboxSafeInitCodeHash).
var (
	// ProxyWalletImplementation is the mainnet proxy-wallet implementation
	// address that PolyProxyLib embeds in every proxy wallet's creation code.
	ProxyWalletImplementation = common.HexToAddress("0x44e999d5c2F66Ef0861317f9A4805AC2e90aEB4f")
	// SafeSingleton is where the sandbox places the Safe singleton.
	SafeSingleton = common.HexToAddress("0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe")
	// DepositWalletImplementation is the mainnet deposit-wallet implementation address.
	DepositWalletImplementation = common.HexToAddress("0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB")
)

//go:embed build/*.bin build/*.bin-runtime
var build embed.FS

// Names lists the contracts that have bytecode in build/.
var Names = []string{
	"Collateral", "ConditionalTokens", "DepositWallet", "DepositWalletFactory", "Exchange",
	"NegRiskAdapter", "ProxyWallet", "ProxyWalletFactory", "Safe", "SafeFactory", "SafeProxy",
}

// RuntimeCode returns a contract's deployed bytecode, as placed in a genesis
// allocation.
func RuntimeCode(name string) ([]byte, error) { return readHex("build/" + name + ".bin-runtime") }

// CreationCode returns a contract's creation bytecode (constructor arguments
// not appended).
func CreationCode(name string) ([]byte, error) { return readHex("build/" + name + ".bin") }

func readHex(path string) ([]byte, error) {
	raw, err := build.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("contracts: no artefact %s: %w", path, err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("contracts: artefact %s is not hex: %w", path, err)
	}
	return b, nil
}

// ProxyWalletInitCode is PolyProxyLib's creation code for a proxy wallet
// made by factory: the 99-byte minimal proxy embedding factory and
// implementation, followed by the ABI call data of cloneConstructor(bytes)
// with empty bytes.
func ProxyWalletInitCode(factory, implementation common.Address) []byte {
	code := make([]byte, 0, 99+68)
	code = append(code, common.FromHex("0x3d3d606380380380913d393d73")...)
	code = append(code, factory.Bytes()...)
	code = append(code, common.FromHex("0x5af4602a57600080fd5b602d8060366000396000f3363d3d373d3d3d363d73")...)
	code = append(code, implementation.Bytes()...)
	code = append(code, common.FromHex("0x5af43d82803e903d91602b57fd5bf3")...)
	// cloneConstructor(bytes) selector, offset 0x20, length 0.
	code = append(code, crypto.Keccak256([]byte("cloneConstructor(bytes)"))[:4]...)
	code = append(code, common.LeftPadBytes([]byte{0x20}, 32)...)
	code = append(code, make([]byte, 32)...)
	return code
}

// ProxyWalletAddress derives owner's proxy wallet (signature type 1) the way
// the venue does: CREATE2 from factory with salt keccak256(owner) (packed,
// 20 bytes) over ProxyWalletInitCode.
func ProxyWalletAddress(factory, implementation, owner common.Address) common.Address {
	salt := crypto.Keccak256Hash(owner.Bytes())
	return crypto.CreateAddress2(factory, salt, crypto.Keccak256(ProxyWalletInitCode(factory, implementation)))
}

// SafeInitCode is the sandbox Safe init code: SafeProxy's creation code
// followed by the ABI-encoded singleton address.
func SafeInitCode(singleton common.Address) ([]byte, error) {
	code, err := CreationCode("SafeProxy")
	if err != nil {
		return nil, err
	}
	return append(code, common.LeftPadBytes(singleton.Bytes(), 32)...), nil
}

// SafeAddress derives owner's Safe (signature type 2): CREATE2 from factory
// with salt keccak256(abi.encode(owner)) and the given init-code hash
// (network.Network.SafeInitCodeHash).
func SafeAddress(factory common.Address, initCodeHash common.Hash, owner common.Address) common.Address {
	salt := crypto.Keccak256Hash(common.LeftPadBytes(owner.Bytes(), 32))
	return crypto.CreateAddress2(factory, salt, initCodeHash.Bytes())
}

// DepositWalletAddress derives owner's sandbox deposit wallet (signature
// type 3): an EIP-1167 clone of implementation created by factory with salt
// keccak256(abi.encode(owner)). It equals DepositWalletFactory.walletOf(owner).
func DepositWalletAddress(factory, implementation, owner common.Address) common.Address {
	code := make([]byte, 0, 55)
	code = append(code, common.FromHex("0x3d602d80600a3d3981f3363d3d373d3d3d363d73")...)
	code = append(code, implementation.Bytes()...)
	code = append(code, common.FromHex("0x5af43d82803e903d91602b57fd5bf3")...)
	salt := crypto.Keccak256Hash(common.LeftPadBytes(owner.Bytes(), 32))
	return crypto.CreateAddress2(factory, salt, crypto.Keccak256(code))
}
