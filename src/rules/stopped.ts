// An evaluation stopped by its cost budget or by the run's deadline (meter.ts counts; check.ts tells them apart). A
// module of its own, without cel-js, so that what every plan imports does not load the CEL library.

/** Steps (expression nodes evaluated) one rule may take on one change: about a tenth of a second of CPU. */
export const STEP_BUDGET = 200_000;

/** An evaluation stopped by its budget or by the run's deadline; `reason` says which. */
export class EvaluationStopped extends Error {
  constructor(readonly reason: 'budget' | 'deadline') {
    super(
      reason === 'budget'
        ? `the evaluation went past its cost budget of ${STEP_BUDGET.toLocaleString('en')} steps`
        : 'the run passed its --deadline while the guardrail rules were evaluated',
    );
  }
}
