// Typesets the equations panel's formulas (explorer/teaching/equations.py) as SVG with MathJax.
//
// Run by `python3 -m explorer.ui.equations NODE_MODULES` (see assets/README.md), which
// passes [{"key": ..., "latex": ...}, ...] as JSON on stdin; prints
// {"key": "<svg ...>...</svg>", ...} as JSON on stdout.  Needs the npm package
// mathjax-full@3 in NODE_MODULES (the app itself never runs Node).
import {createRequire} from "module";
import {readFileSync} from "fs";
import path from "path";

const require = createRequire(path.join(process.argv[2], "noop.js"));
const {mathjax} = require("mathjax-full/js/mathjax.js");
const {TeX} = require("mathjax-full/js/input/tex.js");
const {SVG} = require("mathjax-full/js/output/svg.js");
const {liteAdaptor} = require("mathjax-full/js/adaptors/liteAdaptor.js");
const {RegisterHTMLHandler} = require("mathjax-full/js/handlers/html.js");
const {AllPackages} = require("mathjax-full/js/input/tex/AllPackages.js");

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
const page = mathjax.document("", {
  InputJax: new TeX({packages: AllPackages}),
  // glyphs defined once in each file (<defs>/<use>): each SVG stands alone
  OutputJax: new SVG({fontCache: "local"}),
});
const typeset = {};
for (const {key, latex} of JSON.parse(readFileSync(0, "utf8"))) {
  typeset[key] = adaptor.innerHTML(page.convert(latex, {display: true}));
}
process.stdout.write(JSON.stringify(typeset));
