// What bounds one evaluation of a rule: a cost budget (CEL's step counting, as Kubernetes' runtime cost limit does)
// and the run's --deadline, both counted where cel-js evaluates every node of an expression. cel-js has no cost
// model and no hook for one, but every node it evaluates goes through its evaluator's `run`; that method is wrapped
// here, once per process, to count each node against the meter of the evaluation in progress (none outside one).
// The same place keeps int results within int64, timestamps within CEL's years 1 to 9999 and durations within its
// 10,000 years: cel-js computes ints as unbounded bigints and lets the others grow, where CEL raises an error.
import { Environment } from '@marcbachmann/cel-js';
import { Duration } from './semantics.js';
import { EvaluationStopped, STEP_BUDGET } from './stopped.js';

/** How many steps pass between two looks at the clock (Date.now() costs more than a step). */
const CLOCK_EVERY = 2_048;

const INT_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 63n);
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, CEL's range of timestamps, in epoch milliseconds. */
const TIME_MIN = -62135596800000;
const TIME_MAX = 253402300799999;
/** CEL's range of durations: about 10,000 years either way, in seconds. */
const DURATION_MAX = 315576000000n;

interface Meter {
  steps: number;
  /** the step count at which to look again (the clock, or the budget) */
  next: number;
  deadlineAt: number;
  stopped?: EvaluationStopped;
}

let current: Meter | undefined;

/** A timestamp or duration out of CEL's range: an error, as CEL raises it. (Only arithmetic and duration() make
 *  them: harden.ts checks there, not at every node.) */
function outOfTimeRange(v: unknown): string | undefined {
  if (v instanceof Date) {
    const t = v.getTime();
    return t >= TIME_MIN && t <= TIME_MAX ? undefined : 'timestamp out of range';
  }
  if (v instanceof Duration) {
    const s = BigInt(v.seconds);
    return s > DURATION_MAX || s < -DURATION_MAX ? 'duration out of range' : undefined;
  }
  return undefined;
}

/** `v`, unless it is a timestamp or duration outside CEL's range. */
export function inRange<T>(v: T): T {
  const out = outOfTimeRange(v);
  if (out) throw new Error(out);
  return v;
}

const intOutOfRange = (v: unknown) => typeof v === 'bigint' && (v > INT_MAX || v < INT_MIN);

/** Called when the steps reach `next`: stop at the budget or the deadline, else look again later. */
function tick(m: Meter): void {
  if (!m.stopped) {
    if (m.steps > STEP_BUDGET) m.stopped = new EvaluationStopped('budget');
    else if (Date.now() > m.deadlineAt) m.stopped = new EvaluationStopped('deadline');
  }
  // Once stopped, every further step throws again: an `||` that caught the first cannot carry on computing.
  if (m.stopped) {
    m.next = -1;
    throw m.stopped;
  }
  m.next = Math.min(STEP_BUDGET + 1, m.steps + CLOCK_EVERY);
}

interface EvaluatorLike {
  run(ast: NodeLike, ctx: unknown): unknown;
}
interface NodeLike {
  op: string;
  evaluate(ev: EvaluatorLike, ast: NodeLike, ctx: unknown): unknown;
}

let installed = false;

/** Wraps cel-js's evaluator `run` (reached through `this` of a function it calls) with the meter and range checks. */
function install(): void {
  if (installed) return;
  installed = true;
  let proto: EvaluatorLike | undefined;
  new Environment()
    .registerFunction('probe(): bool', function (this: object) {
      proto = Object.getPrototypeOf(this) as EvaluatorLike;
      return true;
    })
    .evaluate('probe()');
  if (!proto || typeof proto.run !== 'function') throw new Error('cel-js: the evaluator has no run method to meter');
  proto.run = function run(this: EvaluatorLike, ast: NodeLike, ctx: unknown): unknown {
    const m = current;
    if (m !== undefined && ++m.steps > m.next) tick(m);
    const v = ast.evaluate(this, ast, ctx);
    // A literal is let through: `-9223372036854775808` is the negation of a literal one past the range.
    if (typeof v === 'bigint' && (v > INT_MAX || v < INT_MIN) && ast.op !== 'value')
      throw new Error('integer overflow');
    return v;
  };
}

/**
 * `evaluate(arg)` counted against the budget and the deadline (epoch ms). Throws EvaluationStopped when either is
 * passed, whatever the expression made of the errors it met on the way; an int or timestamp result out of CEL's
 * range is an error too.
 */
export function metered<A, T>(deadlineAt: number, evaluate: (arg: A) => T, arg: A): T {
  install();
  // The clock is first looked at after CLOCK_EVERY steps: the caller looks at it before each evaluation.
  const m: Meter = { steps: 0, next: CLOCK_EVERY, deadlineAt };
  const outer = current;
  current = m;
  try {
    const v = evaluate(arg);
    if (m.stopped) throw m.stopped;
    if (intOutOfRange(v)) throw new Error('integer overflow');
    return inRange(v);
  } catch (e) {
    throw m.stopped ?? e;
  } finally {
    current = outer;
  }
}
