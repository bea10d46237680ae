#!/usr/bin/env node
// The `trawl` command. Trawl is written in TypeScript and runs through tsx's loader, so the
// installed package needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
