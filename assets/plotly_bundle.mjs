// Builds the plotly.js bundle the chart element loads (explorer.ui.chart.PLOTLY_BUNDLE): plotly.js's
// core (which draws scatter traces) plus the bar and heatmap traces, the only trace types
// the app's figures use, bundled and minified with esbuild, the bundler plotly.js itself
// uses.  Writes, into OUT_DIR (assets/):
//
//   plotly-<traces>-<version>.min.js        the bundle (a classic script: sets window.Plotly)
//   plotly-<traces>-<version>.packages.txt  every npm package in it, with version and licence
//
// Usage (see assets/README.md; the app itself never runs Node):
//
//   npm install --prefix /tmp/plotly-build plotly.js@4.1.1 esbuild@0.28.2
//   node assets/plotly_bundle.mjs /tmp/plotly-build/node_modules assets
//
// Why not the published partial bundle (plotly.js-cartesian-dist-min): in Chromium it
// took 0.59 s from loading to a drawn first figure, this build 0.34 s (assets/README.md).
import {createRequire} from "module";
import {readFileSync, writeFileSync} from "fs";
import path from "path";

// Trace types registered on top of the core.  explorer.ui.chart.BUNDLE_TRACE_TYPES lists the same
// types plus "scatter"; the tests compare the two (and the browser's Plotly with both).
const TRACES = ["bar", "heatmap"];

const [nodeModules, outDir] = process.argv.slice(2);
if (!nodeModules || !outDir) {
  console.error("usage: node assets/plotly_bundle.mjs NODE_MODULES OUT_DIR");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(nodeModules), "noop.js"));
const esbuild = require("esbuild");
const version = require("plotly.js/package.json").version;
const traces = ["scatter", ...TRACES];
const stem = `plotly-${traces.join("-")}-${version}`;

const entry = [
  `var Plotly = require("plotly.js/lib/core");`,
  `Plotly.register([${TRACES.map((t) => `require("plotly.js/lib/${t}")`).join(", ")}]);`,
  `module.exports = Plotly;`,
].join("\n");

const banner = `/**
* plotly.js v${version}, partial bundle of the traces ${traces.join(", ")} (minified)
* built from the npm package plotly.js@${version} with esbuild ${esbuild.version} by assets/plotly_bundle.mjs
* Copyright 2012-2026, Plotly, Inc.
* All rights reserved.
* Licensed under the MIT license
*/`;

const result = await esbuild.build({
  stdin: {contents: entry, resolveDir: path.resolve(nodeModules), sourcefile: "entry.js"},
  // As plotly.js's own build (its esbuild-config.js): an IIFE that defines the global Plotly.
  bundle: true,
  format: "iife",
  globalName: "Plotly",
  target: "es2016",
  minify: true,
  alias: {regl: "@plotly/regl", stream: "stream-browserify"},
  define: {global: "window", "define.amd": "false", "process.env.NODE_DEBUG": "false"},
  // plotly.js's trace registry requires maplibre's stylesheet for map traces, which this
  // bundle has none of: the stylesheet is left out (plotly.js inlines it with a plugin).
  loader: {".css": "empty"},
  legalComments: "eof",
  banner: {js: banner},
  metafile: true,
  write: false,
  logLevel: "warning",
});
const [output] = result.outputFiles;
writeFileSync(path.join(outDir, `${stem}.min.js`), output.contents);

// The npm packages whose files went into the bundle, for attribution.
const packages = new Map();
const [bundled] = Object.values(result.metafile.outputs);
for (const [input, {bytesInOutput}] of Object.entries(bundled.inputs)) {
  if (!bytesInOutput || input.endsWith(".css")) continue;  // a left-out stylesheet's stub
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (!match || packages.has(match[1])) continue;
  const packageDir = input.slice(0, match.index + match[0].length);  // relative to the cwd
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  const license = typeof manifest.license === "string" ? manifest.license
    : manifest.license?.type ?? "see the package";
  packages.set(match[1], `${match[1]}@${manifest.version} ${license}`);
}
writeFileSync(path.join(outDir, `${stem}.packages.txt`),
  `# npm packages bundled into ${stem}.min.js (name@version licence)\n`
  + [...packages.values()].sort().join("\n") + "\n");
console.log(`${stem}.min.js: ${output.contents.length} bytes, ${packages.size} packages`);
