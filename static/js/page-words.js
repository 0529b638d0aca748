// The words page scripts say, in the page's language. No sentence is written in the scripts:
// the page places its catalog (survey_app/web/page_words.py) as JSON in the data-words of
// <div id="page-words" hidden>, read here once; a test under Node passes one in with useWords.

let catalog = null;

/** Speak from ``words`` (a catalog as the page places it) rather than the page's. */
export function useWords(words) {
  catalog = words;
}

function pageCatalog() {
  if (catalog === null) {
    const element = globalThis.document?.getElementById("page-words");
    catalog = element ? JSON.parse(element.dataset.words) : {};
  }
  return catalog;
}

/** The sentence named ``key``, each %(name)s filled from ``values`` (and %% a percent sign). */
export function say(key, values = {}) {
  const sentence = pageCatalog()[key];
  if (sentence === undefined) throw new Error(`the page gives no words for "${key}"`);
  return sentence.replace(/%\((\w+)\)s|%%/g, (match, name) => (match === "%%" ? "%" : String(values[name])));
}
