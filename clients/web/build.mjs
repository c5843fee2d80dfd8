// Builds the web app into dist/: esbuild bundles src/main.ts (and the TypeScript client
// it imports from ../typescript/src, see tsconfig.json's paths) and its CSS into
// content-hashed files under dist/assets/, then writes dist/index.html pointing at them
// and dist/build.json, the hash of every input (the server refuses a build older than
// its sources). `node build.mjs --if-stale` builds only when an input changed.
//
// The build goes to a fresh directory renamed over dist/ at the end: a server never
// sees half a build.

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, "dist");
const STATIC = ["src/static/favicon.svg"]; // copied as they are, names hashed

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** Whether dist/ was built from the files as they are now. */
function fresh() {
  const manifest = join(DIST, "build.json");
  if (!existsSync(manifest)) return false;
  const { inputs } = JSON.parse(readFileSync(manifest, "utf8"));
  return Object.entries(inputs).every(([path, hash]) => {
    const file = join(HERE, path);
    return existsSync(file) && sha256(readFileSync(file)) === hash;
  });
}

async function build() {
  const esbuild = await import("esbuild");
  const out = join(HERE, `dist.building-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: HERE,
    entryPoints: ["src/main.ts"],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    sourcemap: "linked",
    outdir: join(out, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    tsconfig: "tsconfig.json",
    legalComments: "linked",
    logLevel: "warning",
  });
  const outputs = Object.entries(result.metafile.outputs);
  const script = outputs.find(([, o]) => o.entryPoint === "src/main.ts")[0];
  const style = outputs.find(([path]) => path.endsWith(".css"))[0];
  const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.includes("node_modules/"));
  const assets = { script: basename(script), style: basename(style) };
  for (const path of STATIC) {
    const data = readFileSync(join(HERE, path));
    const name = `${basename(path, extname(path))}-${sha256(data).slice(0, 8).toUpperCase()}${extname(path)}`;
    copyFileSync(join(HERE, path), join(out, "assets", name));
    assets[basename(path, extname(path))] = name;
    inputs.push(path);
  }
  const template = "src/index.html";
  inputs.push(template, "build.mjs", "tsconfig.json", "package-lock.json");
  const page = readFileSync(join(HERE, template), "utf8").replace(/\{\{(\w+)\}\}/g, (_, key) => {
    if (!(key in assets)) throw new Error(`${template}: no asset named ${key}`);
    return `/assets/${assets[key]}`;
  });
  writeFileSync(join(out, "index.html"), page);
  const hashes = Object.fromEntries(inputs.sort().map((path) => [path, sha256(readFileSync(join(HERE, path)))]));
  writeFileSync(join(out, "build.json"), `${JSON.stringify({ inputs: hashes, assets }, null, 1)}\n`);
  rmSync(DIST, { recursive: true, force: true });
  renameSync(out, DIST);
}

if (process.argv.includes("--if-stale") && fresh()) process.exit(0);
await build();
