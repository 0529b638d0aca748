// The browser's randomized response: the only code that randomizes a respondent's answer.
//
// Dependency-free ES module; it runs as it is in browsers and in Node 20 (globalThis.crypto).
//
// Randomness comes only from crypto.getRandomValues. A Bernoulli event is drawn by comparing
// one uniform 32-bit word u with an integer threshold, the event happening when u < threshold,
// so its probability is exactly threshold / 2^32. The thresholds are rounded in the direction
// that never raises epsilon, and survey_app/privacy/parameters.py computes the same integers (its
// flip_threshold and keep_threshold) to debias with exactly these probabilities. A uniform pick
// among m values uses rejection sampling, so no value is favoured by a modulo bias.
//
// Yes/no: the answer is flipped when u < T = ceil(p * 2^32), 0 < p < 1/2: with probability
// p' = T / 2^32 >= p, so epsilon' = ln((1 - p') / p') <= ln((1 - p) / p).
// k options, at the same epsilon: the true option is kept when u < K, with
//     K = floor(2^32 (2^32 - T) / (2^32 + (k - 2) T)),
// the keep probability (1 - p) / (1 + (k - 2) p) of k-option randomized response taken at p' and
// rounded down (in BigInt, exactly); otherwise one of the other k - 1 options is reported,
// uniformly. k = 2 gives K = 2^32 - T, the yes/no mechanism.

export const RANDOM_WORDS = 2 ** 32;

function fail(message) {
  throw new RangeError(message);
}

function checkFinite(name, value) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    fail(`${name} must be a finite number, got ${String(value)}`);
  }
}

function checkFlipProbability(p) {
  checkFinite("flip_probability", p);
  if (!(p > 0 && p < 0.5)) fail(`flip_probability must be in (0, 0.5), got ${p}`);
}

function checkOptionCount(k) {
  if (!Number.isInteger(k) || k < 2) fail(`k must be an integer >= 2, got ${String(k)}`);
}

/** Flip threshold T = ceil(p * 2^32) of randomizeBit(bit, p); p * 2^32 is exact. */
export function flipThreshold(p) {
  checkFlipProbability(p);
  return Math.ceil(p * RANDOM_WORDS);
}

/** Keep threshold K = floor(2^32 (2^32 - T) / (2^32 + (k - 2) T)) of randomizeChoice(index, k, p). */
export function keepThreshold(k, p) {
  checkOptionCount(k);
  const flips = BigInt(flipThreshold(p));
  const words = BigInt(RANDOM_WORDS);
  // BigInt division of positive numbers rounds down.
  return Number((words * (words - flips)) / (words + BigInt(k - 2) * flips));
}

/** One uniform 32-bit word from crypto.getRandomValues. */
function randomWord() {
  const word = new Uint32Array(1);
  globalThis.crypto.getRandomValues(word);
  return word[0];
}

/** A uniform integer in 0 .. m - 1, by rejection sampling (no modulo bias). */
export function uniformBelow(m) {
  if (!Number.isInteger(m) || m < 1 || m > RANDOM_WORDS) {
    fail(`m must be an integer in 1 .. 2^32, got ${String(m)}`);
  }
  // The largest multiple of m not above 2^32: words at or above it are drawn again.
  const limit = RANDOM_WORDS - (RANDOM_WORDS % m);
  for (;;) {
    const word = randomWord();
    if (word < limit) return word % m;
  }
}

/** Report bit (0 or 1), flipped with probability flipThreshold(p) / 2^32. */
export function randomizeBit(bit, p) {
  if (bit !== 0 && bit !== 1) fail(`bit must be 0 or 1, got ${String(bit)}`);
  const flip = flipThreshold(p); // checks p before any word is drawn
  return randomWord() < flip ? 1 - bit : bit;
}

/**
 * Report option index (0 .. k - 1) by k-option randomized response at the epsilon of flip
 * probability p: kept with probability keepThreshold(k, p) / 2^32, otherwise a uniform pick
 * among the other k - 1 options.
 */
export function randomizeChoice(index, k, p) {
  const keep = keepThreshold(k, p); // checks k and p before any word is drawn
  if (!Number.isInteger(index) || index < 0 || index >= k) {
    fail(`index must be an integer in 0 .. ${k - 1}, got ${String(index)}`);
  }
  if (randomWord() < keep) return index;
  const other = uniformBelow(k - 1);
  return other >= index ? other + 1 : other;
}

/** The most cells a paired question may have (k1 k2 <= 12, as survey_app/privacy/joint.py). */
export const MAX_PAIR_CELLS = 12;

/**
 * Report the answers (a, b) of a paired question whose questions have k1 and k2 options as ONE
 * answer: k-option randomized response over the k = k1 k2 cells at the epsilon of flip
 * probability p (randomizeChoice of the cell a k2 + b, with its exact thresholds), so the pair
 * spends the survey's epsilon once. Returns the reported cell's index, a' k2 + b'.
 */
export function randomizePair(a, b, k1, k2, p) {
  checkOptionCount(k1);
  checkOptionCount(k2);
  if (k1 * k2 > MAX_PAIR_CELLS) fail(`k1 * k2 must be at most ${MAX_PAIR_CELLS}, got ${k1 * k2}`);
  checkFlipProbability(p);
  if (!Number.isInteger(a) || a < 0 || a >= k1) {
    fail(`a must be an integer in 0 .. ${k1 - 1}, got ${String(a)}`);
  }
  if (!Number.isInteger(b) || b < 0 || b >= k2) {
    fail(`b must be an integer in 0 .. ${k2 - 1}, got ${String(b)}`);
  }
  return randomizeChoice(a * k2 + b, k1 * k2, p);
}

// ---------------------------------------------------------------------------------------------
// Numeric questions (issue 14). survey_app/privacy/ (numeric_grid.py, laplace.py, hybrid.py,
// one_bit.py) holds the math and computes every integer parameter below (browser_parameters()),
// so nothing here depends on floating-point arithmetic except the value's position on the grid,
// which is the respondent's own value and leaks nothing (any grid index gets the mechanism's
// epsilon).
//
// The report is a function of the value and of noise drawn beforehand, independently of the
// value (drawNumericNoise): the page draws the noise once and re-sends from it, as it does with
// the table of a choice question, and for every value the report has exactly the law the server
// debiases with (each part below compares words with integer thresholds).
//
// Grid: with u = (x - lo) / (hi - lo) * G (x clipped to [lo, hi]), k = floor(u) + 1 when the
// rounding word is below floor((u - floor(u)) 2^32), so E[k] = u up to 2^-32 of a grid step.
//
// - laplace: k + Z clamped to [-B, G + B], Z discrete Laplace with Pr[Z = z] proportional to
//   exp(-|z| s / t), drawn exactly by Canonne, Kamath & Steinke, "The Discrete Gaussian for
//   Differential Privacy" (NeurIPS 2020), Algorithm 1 (bernoulliExp) and Algorithm 2
//   (discreteLaplace), from 32-bit words and integers below 2^53 only; epsilon = G s / t.
// - hybrid (Wang et al. 2019): a word below A picks the piecewise part, otherwise Duchi's.
//   Piecewise: the window k .. k + w - 1 is reported (a uniform cell of it) when a word is below
//   K, otherwise a uniform one of the G cells of 0 .. G + w - 1 outside it. Duchi: G + w + 1
//   ("high") when a word is below T0 + k Delta, otherwise G + w ("low").
// - one_bit (Duchi, Jordan & Wainwright 2018): Duchi's part alone, with the same integers:
//   1 when a word is below T0 + k Delta, otherwise 0, so Pr[1 | k] = (T0 + k Delta) / 2^32 and
//   epsilon = ln((2^32 - T0) / T0) with T0 + (G / 2) Delta = 2^31.

export const NUMERIC_GRID_STEPS = 1000;

/** The largest integer every intermediate value of the numeric mechanisms stays below. */
const SAFE_LIMIT = Number.MAX_SAFE_INTEGER;

function checkInteger(name, value, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`${name} must be an integer in ${min} .. ${max}, got ${String(value)}`);
  }
}

function checkBounds(lo, hi) {
  checkFinite("lo", lo);
  checkFinite("hi", hi);
  if (!(lo < hi)) fail(`lo must be below hi, got lo=${lo}, hi=${hi}`);
  if (!Number.isFinite(hi - lo)) fail(`hi - lo must be a finite number, got lo=${lo}, hi=${hi}`);
}

/**
 * The grid index of value on the grid 0 .. steps of [lo, hi] (value clipped to it), rounded up
 * when word (a uniform 32-bit word) is below floor((u - floor(u)) 2^32), u the grid position.
 */
export function roundToGrid(value, lo, hi, steps, word) {
  checkBounds(lo, hi);
  checkInteger("steps", steps, 1, 2 ** 20);
  checkFinite("value", value);
  checkInteger("word", word, 0, RANDOM_WORDS - 1);
  const clipped = Math.min(hi, Math.max(lo, value));
  const position = ((clipped - lo) / (hi - lo)) * steps;
  const floor = Math.floor(position);
  // position - floor is exact, and so is its scaling by 2^32: the threshold is an integer.
  const up = Math.floor((position - floor) * RANDOM_WORDS);
  return Math.min(steps, floor + (word < up ? 1 : 0));
}

/** gridIndex by randomized rounding with a fresh word: floor(u) + Bernoulli(u - floor(u)). */
export function gridIndex(value, lo, hi, steps = NUMERIC_GRID_STEPS) {
  checkBounds(lo, hi);
  checkFinite("value", value);
  checkInteger("steps", steps, 1, 2 ** 20);
  return roundToGrid(value, lo, hi, steps, randomWord());
}

/** A uniform integer in 0 .. m - 1 for m up to 2^53: one word up to 2^32, else two (rejection). */
export function uniformBelowLarge(m) {
  checkInteger("m", m, 1, SAFE_LIMIT);
  if (m <= RANDOM_WORDS) return uniformBelow(m);
  const modulus = BigInt(m);
  const range = 1n << 64n;
  const limit = range - (range % modulus);
  for (;;) {
    const high = BigInt(randomWord());
    const word = (high << 32n) | BigInt(randomWord());
    if (word < limit) return Number(word % modulus);
  }
}

/** Bernoulli(numerator / denominator): a uniform draw below denominator is below numerator. */
function bernoulliFraction(numerator, denominator) {
  return uniformBelowLarge(denominator) < numerator;
}

/**
 * True with probability exp(-numerator / denominator), exactly (Canonne, Kamath & Steinke 2020,
 * Algorithm 1). For gamma = numerator / denominator in [0, 1]: draw Bernoulli(gamma / K) for
 * K = 1, 2, ... until one fails, and return whether that K is odd. Above 1, exp(-gamma) is
 * exp(-1)^floor(gamma) exp(-(gamma - floor(gamma))).
 */
export function bernoulliExp(numerator, denominator) {
  checkInteger("denominator", denominator, 1, 2 ** 32);
  checkInteger("numerator", numerator, 0, 2 ** 32 * denominator);
  if (numerator <= denominator) {
    let k = 1;
    while (bernoulliFraction(numerator, denominator * k)) k += 1;
    return k % 2 === 1;
  }
  const whole = (numerator - (numerator % denominator)) / denominator;
  for (let i = 0; i < whole; i += 1) {
    if (!bernoulliExp(1, 1)) return false;
  }
  return bernoulliExp(numerator % denominator, denominator);
}

/**
 * An integer Z with Pr[Z = z] proportional to exp(-|z| s / t): the discrete Laplace (two-sided
 * geometric) law of scale t / s, exactly (Canonne, Kamath & Steinke 2020, Algorithm 2).
 */
export function discreteLaplace(t, s) {
  checkInteger("scale_numerator", t, 1, 2 ** 32);
  checkInteger("scale_denominator", s, 1, 2 ** 32);
  for (;;) {
    const u = uniformBelow(t);
    if (!bernoulliExp(u, t)) continue;
    let v = 0;
    while (bernoulliExp(1, 1)) v += 1;
    const x = u + t * v;
    const y = (x - (x % s)) / s;
    const negative = randomWord() < RANDOM_WORDS / 2;
    if (negative && y === 0) continue;
    return negative ? -y : y;
  }
}

function checkParameterObject(params) {
  if (params === null || typeof params !== "object") fail("params must be an object");
  checkInteger("steps", params.steps, 2, 2 ** 20);
}

function checkLaplaceParameters(params) {
  checkParameterObject(params);
  checkInteger("scale_numerator", params.scale_numerator, 1, 2 ** 32);
  checkInteger("scale_denominator", params.scale_denominator, 1, 2 ** 32);
  checkInteger("bound", params.bound, 1, 2 ** 40);
}

/**
 * Duchi's thresholds T0 + k Delta (k = 0 .. steps), shared by the hybrid and one_bit: symmetric
 * about 2^31 (T0 + (steps / 2) Delta = 2^31), so every threshold lies in 1 .. 2^32 - 1.
 */
function checkDuchiParameters(params) {
  checkParameterObject(params);
  if (params.steps % 2 !== 0) fail(`steps must be even, got ${params.steps}`);
  checkInteger("duchi_base", params.duchi_base, 1, RANDOM_WORDS / 2);
  checkInteger("duchi_slope", params.duchi_slope, 0, RANDOM_WORDS);
  if (params.duchi_base + (params.steps / 2) * params.duchi_slope !== RANDOM_WORDS / 2) {
    fail("duchi_base + (steps / 2) duchi_slope must be 2^31");
  }
}

function checkHybridParameters(params) {
  checkDuchiParameters(params);
  checkInteger("width", params.width, 1, params.steps);
  checkInteger("window_threshold", params.window_threshold, 1, RANDOM_WORDS - 1);
  checkInteger("piecewise_threshold", params.piecewise_threshold, 0, RANDOM_WORDS);
}

function checkMechanism(mechanism, params) {
  if (mechanism === "laplace") return checkLaplaceParameters(params);
  if (mechanism === "hybrid") return checkHybridParameters(params);
  if (mechanism === "one_bit") return checkDuchiParameters(params);
  return fail(`mechanism must be "laplace", "hybrid" or "one_bit", got ${String(mechanism)}`);
}

/** The report of grid index k by GridLaplace: k + laplace, clamped to [-B, G + B]. */
export function laplaceReport(k, params, laplace) {
  checkLaplaceParameters(params);
  checkInteger("k", k, 0, params.steps);
  checkInteger("laplace", laplace, -SAFE_LIMIT, SAFE_LIMIT);
  return Math.min(params.steps + params.bound, Math.max(-params.bound, k + laplace));
}

/** The report of grid index k by HybridNumeric with the noise of drawNumericNoise("hybrid"). */
export function hybridReport(k, params, noise) {
  checkHybridParameters(params);
  checkInteger("k", k, 0, params.steps);
  const cells = params.steps + params.width;
  if (noise.part < params.piecewise_threshold) {
    if (noise.window < params.window_threshold) return k + noise.offset;
    return noise.outside >= k ? noise.outside + params.width : noise.outside;
  }
  return noise.duchi < params.duchi_base + k * params.duchi_slope ? cells + 1 : cells;
}

/** The report (0 or 1) of grid index k by OneBitNumeric: 1 when duchi < T0 + k Delta. */
export function oneBitReport(k, params, duchi) {
  checkDuchiParameters(params);
  checkInteger("k", k, 0, params.steps);
  checkInteger("duchi", duchi, 0, RANDOM_WORDS - 1);
  return duchi < params.duchi_base + k * params.duchi_slope ? 1 : 0;
}

/**
 * The noise of one numeric answer, drawn before the answer is known (every draw the mechanism
 * may use, so that the report for any value follows from it): plain integers, to keep until the
 * report is sent. Words are drawn in the order of the fields below.
 */
export function drawNumericNoise(mechanism, params) {
  checkMechanism(mechanism, params); // before any word is drawn
  const rounding = randomWord();
  if (mechanism === "laplace") {
    return { rounding, laplace: discreteLaplace(params.scale_numerator, params.scale_denominator) };
  }
  if (mechanism === "one_bit") return { rounding, duchi: randomWord() };
  return {
    rounding,
    part: randomWord(),
    window: randomWord(),
    offset: uniformBelow(params.width),
    outside: uniformBelow(params.steps),
    duchi: randomWord(),
  };
}

/** True when noise is what drawNumericNoise(mechanism, params) can return (say, from storage). */
export function numericNoiseFits(noise, mechanism, params) {
  if (noise === null || typeof noise !== "object") return false;
  const word = (value) => Number.isInteger(value) && value >= 0 && value < RANDOM_WORDS;
  try {
    checkMechanism(mechanism, params);
  } catch {
    return false;
  }
  if (!word(noise.rounding)) return false;
  if (mechanism === "laplace") return Number.isSafeInteger(noise.laplace);
  if (mechanism === "one_bit") return word(noise.duchi);
  return (
    word(noise.part) &&
    word(noise.window) &&
    word(noise.duchi) &&
    Number.isInteger(noise.offset) &&
    noise.offset >= 0 &&
    noise.offset < params.width &&
    Number.isInteger(noise.outside) &&
    noise.outside >= 0 &&
    noise.outside < params.steps
  );
}

/**
 * The report of value on [lo, hi] by the named mechanism ("laplace", "hybrid" or "one_bit") with
 * the server's browser_parameters() and noise from drawNumericNoise: no randomness of its own.
 */
export function numericReport(value, lo, hi, mechanism, params, noise) {
  checkMechanism(mechanism, params);
  if (!numericNoiseFits(noise, mechanism, params)) fail("noise must come from drawNumericNoise");
  const k = roundToGrid(value, lo, hi, params.steps, noise.rounding);
  if (mechanism === "laplace") return laplaceReport(k, params, noise.laplace);
  if (mechanism === "one_bit") return oneBitReport(k, params, noise.duchi);
  return hybridReport(k, params, noise);
}

/** The report of value on [lo, hi] by the named mechanism, with fresh noise. */
export function randomizeNumber(value, lo, hi, mechanism, params) {
  checkMechanism(mechanism, params);
  checkBounds(lo, hi);
  checkFinite("value", value);
  return numericReport(value, lo, hi, mechanism, params, drawNumericNoise(mechanism, params));
}
