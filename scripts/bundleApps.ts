// Bundles the two programs, the `rxlock` command line (shipped) and the demo (`npm run demo`; `rxlock demo`
// in the package), each into one file with everything it imports: the libraries they alone use (argument
// parsing, live terminal output), which stay devDependencies so that a project that installs rxlock as a
// library gets none of them, and rxlock itself with rxjs and ioredis, so that Node starts the command line
// from one file instead of reading hundreds of modules. Minified to keep the package small; names are kept,
// as the errors' names come from their classes.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  name: string;
  version: string;
  license?: string;
}

const NOTICES = 'dist/THIRD_PARTY_LICENSES.md';

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

for (const dir of ['dist/cli', 'dist/demo']) rmSync(dir, { recursive: true, force: true });

const result = await build({
  entryPoints: { 'cli/main': 'src/cli/main.ts', 'demo/main': 'src/demo/main.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
  // The bundled CommonJS packages call require() for Node's built-ins, which an ES module does not have.
  banner: {
    js: `// Bundled third-party code: see ${NOTICES.replace('dist/', '../')}\nimport { createRequire as __rxlockCreateRequire } from 'node:module';\nconst require = __rxlockCreateRequire(import.meta.url);`,
  },
});

/** The folder of the package a bundled input belongs to: `node_modules/<name>` or `node_modules/@scope/<name>`. */
function packageDir(input: string): string | undefined {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

const packageDirs = [...new Set(Object.keys(result.metafile.inputs).flatMap((input) => packageDir(input) ?? []))].sort();
const sections = packageDirs.map((dir) => {
  const manifest = readManifest(dir);
  const licenseFile = readdirSync(dir).find((file) => /^licen[cs]e/i.test(file));
  const text = licenseFile ? readFileSync(join(dir, licenseFile), 'utf8').trim() : (manifest.license ?? 'no license file');
  return `## ${manifest.name} ${manifest.version} (${manifest.license ?? 'unknown'})\n\n\`\`\`\n${text}\n\`\`\`\n`;
});
writeFileSync(
  NOTICES,
  `# Third-party licenses\n\nThe \`rxlock\` command line and the demo (\`dist/cli\`, \`dist/demo\`) include these packages.\n\n${sections.join('\n')}`,
);
