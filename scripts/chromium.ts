/**
 * The Chromium the browser tests drive: the build that the npm package @sparticuz/chromium
 * ships inside its tarball (pinned in package-lock.json), so that a fresh machine needs no
 * apt, no root and no browser vendor's download server. Its brotli-compressed files are
 * unpacked once per version into node_modules/.cache/paygate-chromium/<version>/, with the
 * shared libraries (NSS) and fonts it needs beside it.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

const ROOT = path.resolve(import.meta.dirname, '..');
const PACKAGE = path.join(ROOT, 'node_modules/@sparticuz/chromium');

export interface ChromiumBuild {
  executablePath: string;
  /** Variables the browser process needs on top of the environment. */
  env: Record<string, string>;
}

function cacheDir(): string {
  const pkg = path.join(PACKAGE, 'package.json');
  if (!existsSync(pkg)) {
    throw new Error(
      'the browser tests need the dev dependency @sparticuz/chromium: run npm ci (without --omit=dev)',
    );
  }
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  return path.join(ROOT, 'node_modules/.cache/paygate-chromium', version);
}

function buildIn(dir: string): ChromiumBuild {
  return {
    executablePath: path.join(dir, 'chromium'),
    env: {
      LD_LIBRARY_PATH: [path.join(dir, 'al2023/lib'), process.env.LD_LIBRARY_PATH]
        .filter(Boolean)
        .join(':'),
      FONTCONFIG_FILE: path.join(dir, 'fonts.conf'),
    },
  };
}

async function unbrotli(file: string, to: string): Promise<void> {
  await pipeline(
    createReadStream(file),
    createBrotliDecompress(),
    createWriteStream(to, { mode: 0o755 }),
  );
}

async function untar(file: string, into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  // Unpacked from a file: tar stops reading at the archive's end marker, before a pipe's end.
  const archive = path.join(into, '.archive.tar');
  await unbrotli(file, archive);
  const tar = spawn('tar', ['-x', '--no-same-owner', '-f', archive, '-C', into], {
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    tar.once('error', reject);
    tar.once('close', resolve);
  });
  await rm(archive);
  if (code !== 0) throw new Error(`tar could not unpack ${file} (exit code ${code})`);
}

/** The unpacked Chromium, unpacked now if this is the first use of this version. */
export async function obtainChromium(): Promise<ChromiumBuild> {
  const dir = cacheDir();
  if (existsSync(path.join(dir, 'chromium'))) return buildIn(dir);
  const bin = path.join(PACKAGE, 'bin');
  // Unpacked beside the final place and renamed into it: a run that dies half-way leaves no
  // half-unpacked browser behind, and two runs at once both end with a whole one.
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await unbrotli(path.join(bin, 'chromium.br'), path.join(tmp, 'chromium'));
  await untar(path.join(bin, 'swiftshader.tar.br'), tmp);
  await untar(path.join(bin, 'al2023.tar.br'), path.join(tmp, 'al2023'));
  await untar(path.join(bin, 'fonts.tar.br'), path.join(tmp, 'fonts'));
  await writeFile(
    path.join(tmp, 'fonts.conf'),
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      `  <dir>${path.join(dir, 'fonts/fonts')}</dir>`,
      '  <dir>/usr/share/fonts</dir>',
      `  <cachedir>${path.join(dir, 'fontconfig-cache')}</cachedir>`,
      '</fontconfig>',
      '',
    ].join('\n'),
  );
  try {
    await rename(tmp, dir);
  } catch {
    // Another run finished first; its copy is as good as ours.
    await rm(tmp, { recursive: true, force: true });
  }
  return buildIn(dir);
}
