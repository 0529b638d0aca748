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
