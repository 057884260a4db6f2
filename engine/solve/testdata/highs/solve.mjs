// Solves the CPLEX LP model on stdin with HiGHS within the time limit in
// seconds given as the first argument (and the HiGHS options given as JSON
// in the second, if any), and prints as JSON the model status, the
// objective and the dual bound, the seconds taken (reading the model
// included) and the value of every nonzero column x… of the best solution
// found, if any.
import loadHighs from "highs";
import { readFileSync } from "node:fs";

const lp = readFileSync(0, "utf8");
const highs = await loadHighs();
const started = Date.now();
const model = highs.createModel({ format: "lp", data: lp });
try {
  model.options.set({
    output_flag: false,
    time_limit: Number(process.argv[2] || 5),
    mip_rel_gap: 0, // the objective is a large gain a session placed: the default gap would stop short on the soft cost
    ...JSON.parse(process.argv[3] || "{}"),
  });
  model.run();
  const code = model.getModelStatus();
  const status = Object.keys(highs.constants.modelStatus).find((k) => highs.constants.modelStatus[k] === code);
  const feasible = model.info.get("primal_solution_status") === 2;
  const values = {};
  if (feasible) {
    model.getSolution().colValue.forEach((v, i) => {
      if (Math.abs(v) > 0.5) {
        const name = model.getColName(i);
        if (name.startsWith("x")) values[name] = v;
      }
    });
  }
  console.log(JSON.stringify({
    status, feasible,
    objective: feasible ? model.info.get("objective_function_value") : null,
    bound: model.info.get("mip_dual_bound"),
    seconds: (Date.now() - started) / 1000,
    values,
  }));
} finally {
  model.dispose();
}
