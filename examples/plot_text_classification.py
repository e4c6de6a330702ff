"""
Text classification with multinomial naive Bayes
================================================

A text becomes a vector of word counts, and multinomial naive Bayes models each class
as a bag of words: every word of a text is drawn independently from the class's word
distribution :math:`P(w|c)`. The likelihood of a text is the product of its words'
probabilities, and Laplace smoothing (add one to every count) keeps a word never seen
in a class from setting that product to zero.
"""

# %%
# Five short texts
# ----------------
# :func:`bayesrule.datasets.sports` holds five labelled sentences and the query
# "A very close game". One-letter words are kept, as in the lecture example.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

from bayesrule import MultinomialNB
from bayesrule.datasets import sports

texts = sports()
for text, label in zip(texts.data, texts.target, strict=True):
    print(f"{label:10s} {text}")
words = CountVectorizer(token_pattern=r"(?u)\b\w+\b")
model = MultinomialNB(alpha=1.0).fit(words.fit_transform(texts.data), texts.target)
query = words.transform([texts.query])

# %%
# The likelihoods are the products of the smoothed word probabilities ("very" is in
# one Sports text only, "close" in one of the others). Multiplied by the priors they
# give the posteriors, and the query is called Sports.
print("classes:          ", model.classes_)
print("products P(w|c):  ", np.exp(model.log_likelihood(query)[0]))
print("priors:           ", model.class_prior_)
print("posteriors:       ", model.predict_proba(query)[0].round(4))
print("decision:         ", model.predict(query)[0])

# %%
# A larger corpus
# ---------------
# Three topics write from their own vocabulary plus words every text uses. The
# texts are generated here with a fixed seed (the documentation builds offline).
rng = np.random.default_rng(0)
shared = "the a of and to in is was on for with after this new year".split()
topics = {
    "sports": "game match team goal score season coach player win league final".split(),
    "politics": "election vote party minister law debate senate policy campaign poll".split(),
    "science": "study cell data energy experiment climate gene model theory lab".split(),
}


def write(topic, n_words):
    own = rng.random(n_words) < 0.4  # the rest from the shared and the other topics' words
    other = [w for t, vocab in topics.items() if t != topic for w in vocab]
    pool = np.array(shared * 4 + other)
    return " ".join(np.where(own, rng.choice(topics[topic], n_words), rng.choice(pool, n_words)))


corpus = [(write(t, rng.integers(6, 16)), t) for t in topics for _ in range(300)]
docs, labels = map(list, zip(*corpus, strict=True))
print(docs[0], "->", labels[0])
d_train, d_test, y_train, y_test = train_test_split(docs, labels, test_size=0.5, random_state=0)
vectoriser = CountVectorizer()
nb = MultinomialNB(alpha=1.0).fit(vectoriser.fit_transform(d_train), y_train)
print(f"held-out accuracy: {nb.score(vectoriser.transform(d_test), y_test):.4f}")

# %%
# The most telling words
# ----------------------
# Each occurrence of a word adds :math:`\log P(w|c)` to the log likelihood of class
# :math:`c`, so the words whose probabilities differ most between the classes decide.
# The bars show, per class, the words with the largest log ratio between their
# probability in the class and their mean probability in the others; the shared
# words, equally likely everywhere, have ratios near zero and never make the list.
vocab = vectoriser.get_feature_names_out()
log_p = nb.feature_log_prob_
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), layout="constrained")
for k, (ax, label) in enumerate(zip(axes, nb.classes_, strict=True)):
    others = np.log(np.exp(np.delete(log_p, k, axis=0)).mean(axis=0))
    ratio = log_p[k] - others
    top = np.argsort(ratio)[-8:]
    ax.barh(vocab[top], ratio[top], color=f"C{k}")
    ax.set_title(label)
    ax.set_xlabel("log P(w|class) / P(w|others)")
fig.suptitle("Words that most favour each class (multinomial naive Bayes)")
