// What the kinds whose answer is one of their options share (yes-no.js, choice.js): the answer
// is the radio button checked, and the table holds the randomized value of each possible one.
// The randomization itself is randomized-response.js's, passed in by each kind.

/** A kind of question answered by picking one option; ``randomize(trueValue, k, p)``. */
export function optionKind(randomize) {
  return {
    read() {
      return {};
    },
    draw(question, flipProbability) {
      const values = [];
      for (let trueValue = 0; trueValue < question.optionCount; trueValue += 1) {
        values.push(randomize(trueValue, question.optionCount, flipProbability));
      }
      return values;
    },
    fits(entry, question) {
      return (
        Array.isArray(entry) &&
        entry.length === question.optionCount &&
        entry.every((value) => Number.isInteger(value) && value >= 0 && value < question.optionCount)
      );
    },
    report(question, answer, entry) {
      return entry[answer];
    },
    readAnswer(question) {
      const checked = question.fieldset.querySelector("input[type=radio]:checked");
      question.fieldset.classList.toggle("unanswered", !checked);
      return checked ? { value: Number(checked.value) } : {};
    },
    clear(question) {
      for (const radio of question.fieldset.querySelectorAll("input[type=radio]")) radio.checked = false;
    },
    asksNumber: false,
  };
}
