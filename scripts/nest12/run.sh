#!/usr/bin/env bash
# Runs rxlock/nestjs's tests against NestJS 12: installs @nestjs/* 12 into .tmp/nest12 (once), then runs
# test/nestjs and marbles/nestjs with every @nestjs/* import resolved there (vitest aliases in this process,
# a resolve hook in the child processes the tests start). The repository itself keeps NestJS 11.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.tmp/nest12
if [ ! -d "$dir/node_modules/@nestjs/core" ]; then
  mkdir -p "$dir"
  echo '{ "name": "nest12-check", "private": true }' > "$dir/package.json"
  # Peers (rxjs, reflect-metadata) are left out so that they resolve to the repository's own copies.
  (cd "$dir" && npm install --no-audit --no-fund --legacy-peer-deps --no-package-lock \
    @nestjs/common@12 @nestjs/core@12 @nestjs/testing@12 @nestjs/platform-express@12 @nestjs/schedule@12)
fi
node -e 'for (const p of ["common", "core", "testing", "platform-express", "schedule"]) console.log(`@nestjs/${p}`, require(`./'"$dir"'/node_modules/@nestjs/${p}/package.json`).version)'
NODE_OPTIONS="--import $(pwd)/scripts/nest12/register.js ${NODE_OPTIONS:-}" npx vitest run --config scripts/nest12/vitest.config.ts "$@"
