import { closeSync, openSync, readSync } from 'node:fs';

/** Up to `length` bytes of the file at `path` from `offset` (fewer where the file ends first). */
export function readRange(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(length);
    return b.subarray(0, readSync(fd, b, 0, length, offset));
  } finally {
    closeSync(fd);
  }
}
