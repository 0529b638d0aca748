// The browser's randomized response: the only code that randomizes a respondent's answer.
//
// Dependency-free ES module; it runs as it is in browsers and in Node 20 (globalThis.crypto).
//
// Randomness comes only from crypto.getRandomValues. A Bernoulli event of probability q is
// drawn by comparing one uniform 32-bit word u with the integer threshold
//     T = Math.round(q * 2^32):   the event happens when u < T,
// so its probability is exactly T / 2^32 (effectiveProbability(q)); the server computes epsilon
// and its estimates from that same value. A uniform pick among m values uses rejection
// sampling, so no value is favoured by a modulo bias.
//
// Yes/no: the answer is flipped with probability p, 0 < p < 1/2; epsilon = ln((1 - p) / p).
// k options: the true option is kept with probability P = e^eps / (e^eps + k - 1); otherwise
// one of the other k - 1 options is reported, uniformly.

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

function checkEpsilon(epsilon) {
  checkFinite("epsilon", epsilon);
  if (!(epsilon > 0)) fail(`epsilon must be a finite number > 0, got ${epsilon}`);
}

function checkOptionCount(k) {
  if (!Number.isInteger(k) || k < 2) fail(`k must be an integer >= 2, got ${String(k)}`);
}

/** Integer threshold T = round(q * 2^32) of a Bernoulli draw with probability q in [0, 1]. */
export function threshold(probability) {
  checkFinite("probability", probability);
  if (!(probability >= 0 && probability <= 1)) {
    fail(`probability must be in [0, 1], got ${probability}`);
  }
  return Math.round(probability * RANDOM_WORDS);
}

/** The probability really used for q: T / 2^32. */
export function effectiveProbability(probability) {
  return threshold(probability) / RANDOM_WORDS;
}

/** Threshold of the flip in randomizeBit(bit, p). */
export function flipThreshold(p) {
  checkFlipProbability(p);
  return threshold(p);
}

/** Keep probability P = e^eps / (e^eps + k - 1) of k-option randomized response. */
export function keepProbability(k, epsilon) {
  checkOptionCount(k);
  checkEpsilon(epsilon);
  // Written with e^-eps so that large epsilons do not overflow (as survey_app.privacy does).
  return 1 / (1 + (k - 1) * Math.exp(-epsilon));
}

/** Threshold of keeping the true option in randomizeChoice(index, k, epsilon). */
export function keepThreshold(k, epsilon) {
  return threshold(keepProbability(k, epsilon));
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
  checkFlipProbability(p);
  return randomWord() < flipThreshold(p) ? 1 - bit : bit;
}

/**
 * Report option index (0 .. k - 1) by k-option randomized response: kept with probability
 * keepThreshold(k, epsilon) / 2^32, otherwise a uniform pick among the other k - 1 options.
 */
export function randomizeChoice(index, k, epsilon) {
  checkOptionCount(k);
  checkEpsilon(epsilon);
  if (!Number.isInteger(index) || index < 0 || index >= k) {
    fail(`index must be an integer in 0 .. ${k - 1}, got ${String(index)}`);
  }
  if (randomWord() < keepThreshold(k, epsilon)) return index;
  const other = uniformBelow(k - 1);
  return other >= index ? other + 1 : other;
}
