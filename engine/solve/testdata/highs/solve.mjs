// Solves the CPLEX LP model on stdin with HiGHS within the time limit in
// seconds given as the first argument, and prints the status, the
// objective and the columns set to one as JSON.
import loadHighs from "highs";
import { readFileSync } from "node:fs";

const lp = readFileSync(0, "utf8");
const highs = await loadHighs();
const started = Date.now();
const r = highs.solve(lp, { output_flag: false, time_limit: Number(process.argv[2] || 5), mip_rel_gap: 0 });
const ones = [];
for (const [name, c] of Object.entries(r.Columns || {})) {
  if (name.startsWith("x") && c.Primal > 0.5) ones.push(name);
}
console.log(JSON.stringify({ status: r.Status, objective: r.ObjectiveValue, seconds: (Date.now() - started) / 1000, ones }));
