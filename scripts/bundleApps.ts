// Bundles the two programs the package ships, the `rxlock` command line and the demo, with the libraries
// they alone use (argument parsing, tables, live terminal output). Those stay devDependencies, so a project
// that installs rxlock as a library gets none of them. The library itself (`tsc -p tsconfig.build.json`) is
// not bundled; its dependencies and peer dependencies stay external here too.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  name: string;
  version: string;
  license?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const NOTICES = 'dist/THIRD_PARTY_LICENSES.md';

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const own = readManifest('.');

// Chunk names change with their contents: last build's would stay behind and be packed.
for (const dir of ['dist/cli', 'dist/demo', 'dist/apps']) rmSync(dir, { recursive: true, force: true });

const result = await build({
  entryPoints: { 'cli/main': 'src/cli/main.ts', 'demo/main': 'src/demo/main.ts' },
  outdir: 'dist',
  chunkNames: 'apps/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  external: [...Object.keys(own.dependencies ?? {}), ...Object.keys(own.peerDependencies ?? {})],
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
  `# Third-party licenses\n\nThe \`rxlock\` command line and the demo (\`dist/cli\`, \`dist/demo\`, \`dist/apps\`) include these packages.\n\n${sections.join('\n')}`,
);
