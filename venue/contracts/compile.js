// Compiles src/*.sol with the solc-js version pinned in package.json through
// the standard-JSON interface and writes, per deployable contract,
// build/<Name>.abi, build/<Name>.bin and build/<Name>.bin-runtime.
// Settings are fixed here (not taken from the environment) so the output is
// byte-for-byte reproducible; run it through `go generate ./venue/contracts`.
'use strict';

const fs = require('fs');
const path = require('path');
const solc = require('solc');

const PINNED = '0.8.28';
// Contracts that get bytecode and Go bindings, in output order.
const CONTRACTS = [
  'Collateral',
  'ConditionalTokens',
  'DepositWallet',
  'DepositWalletFactory',
  'Exchange',
  'NegRiskAdapter',
  'ProxyWallet',
  'ProxyWalletFactory',
  'Safe',
  'SafeFactory',
  'SafeProxy',
];

function main() {
  const version = solc.version();
  if (!version.startsWith(PINNED + '+')) {
    throw new Error(`solc ${version} is not the pinned ${PINNED}; run npm ci`);
  }
  const srcDir = path.join(__dirname, 'src');
  const sources = {};
  for (const f of fs.readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()) {
    // Source unit names are bare file names so the build does not depend on
    // where the repository is checked out.
    sources[f] = { content: fs.readFileSync(path.join(srcDir, f), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      // No metadata hash: comments and paths do not change bytecode, so the
      // Safe init-code hash only moves when code does.
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const findImports = (p) => {
    const file = path.join(srcDir, path.basename(p));
    if (!fs.existsSync(file)) return { error: `import not found: ${p}` };
    return { contents: fs.readFileSync(file, 'utf8') };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (output.errors || []).filter((e) => e.severity === 'error');
  for (const e of output.errors || []) {
    process.stderr.write(e.formattedMessage + '\n');
  }
  if (errors.length > 0) {
    process.exit(1);
  }
  const outDir = path.join(__dirname, 'build');
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of CONTRACTS) {
    const c = output.contracts[`${name}.sol`] && output.contracts[`${name}.sol`][name];
    if (!c) throw new Error(`contract ${name} missing from compiler output`);
    fs.writeFileSync(path.join(outDir, `${name}.abi`), JSON.stringify(c.abi, null, 1) + '\n');
    fs.writeFileSync(path.join(outDir, `${name}.bin`), c.evm.bytecode.object);
    fs.writeFileSync(path.join(outDir, `${name}.bin-runtime`), c.evm.deployedBytecode.object);
  }
  fs.writeFileSync(path.join(outDir, 'SOLC_VERSION'), version + '\n');
}

main();
