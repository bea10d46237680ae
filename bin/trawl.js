#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node
// The `trawl` command: the compiled JavaScript in dist/ (`npm run build`, scripts/build.ts). Where
// there is no build, or a source file it was made from has changed since (a checkout being worked
// on), the TypeScript runs through tsx instead — slower to start, never stale.
//
// The first line sets glibc's mmap threshold for the process (it is read once, at start): by
// default glibc raises it to the size of the largest block freed, up to 32 MB, and then serves
// large buffers — response bodies, PDFs, the messages between threads — from its arenas, which
// fragment and are never given back. Fixed at 128 KB, such buffers are mapped and unmapped on their
// own: a crawl of PDFs (bench/documents) peaked ~120 MB lower.
import { readFileSync, statSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);

/** Whether dist/ holds a build at least as new as every source file it was made from. */
function builtAndFresh() {
  let inputs;
  let builtAt;
  try {
    builtAt = statSync(new URL('build.json', dist)).mtimeMs;
    inputs = JSON.parse(readFileSync(new URL('build.json', dist), 'utf8')).inputs;
  } catch {
    return false;
  }
  const root = new URL('../', import.meta.url);
  for (const file of inputs) {
    try {
      if (statSync(new URL(file, root)).mtimeMs > builtAt) return false;
    } catch {
      return false; // (A source file gone: the build is of another tree.)
    }
  }
  return true;
}

if (builtAndFresh()) {
  await import(new URL('trawl.js', dist).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
