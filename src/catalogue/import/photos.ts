import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, isAbsolute, join, resolve } from 'node:path';

const PHOTO_TYPES = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.svg', '.avif']);
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

export interface PhotoCopy {
  source: string;
  /** path inside MEDIA_DIR: <company_id>/<content hash><ext> */
  target: string;
}

/** A photo named in the file: where it is and where it goes (content-addressed), or what is wrong with it. */
export function locatePhoto(companyId: string, baseDir: string, name: string): PhotoCopy | { problem: string } {
  const source = isAbsolute(name) ? name : resolve(baseDir, name);
  const ext = extname(source).toLowerCase();
  if (!PHOTO_TYPES.has(ext)) return { problem: `must be an image file (${[...PHOTO_TYPES].join(', ')})` };
  const info = existsSync(source) ? statSync(source) : undefined;
  if (!info?.isFile()) return { problem: `no such file: ${source}` };
  if (info.size > MAX_PHOTO_BYTES) return { problem: `larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB` };
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 24);
  return { source, target: `${companyId}/${hash}${ext}` };
}

/** Copies the checked photos into MEDIA_DIR; one already there (same content, same name) is reused. */
export function copyPhotos(mediaDir: string, companyId: string, photos: Iterable<PhotoCopy>): void {
  for (const { source, target } of photos) {
    const dest = join(mediaDir, target);
    if (!existsSync(dest)) {
      mkdirSync(join(mediaDir, companyId), { recursive: true });
      writeFileSync(dest, readFileSync(source));
    }
  }
}
