"""The one-line help and the examples (epilog) of each subcommand of ``bayesrule``."""

#: examples and notes shown at the end of ``bayesrule <command> --help``
EPILOGS = {
    "fit": """examples:
  bayesrule fit fruit.csv --target fruit -o fruit.model
  bayesrule fit fruit.csv --target fruit --model lda \\
      --priors apple=0.4,orange=0.4,grapefruit=0.2 -o lda.model
  bayesrule fit fruit.csv --target fruit --loss loss.csv --reject-cost 0.1 -o risky.model
  bayesrule fit texts.csv --target label --text-column text -o words.model

models: qda, lda, gaussian-nb, nearest-mean, gaussian, mixture, kernel-nb,
  bernoulli-nb, multinomial-nb, complement-nb, poisson-nb, categorical-nb, mixed-nb, aode,
  ande, waode, tan, kdb, spode, skdb, eskdb, hnb, search. Default: multinomial-nb with
  --text-column, mixed-nb when a feature column is not numeric or has missing values, else
  qda. The semi-naive models (aode to search) take discrete values; --discretize mdl (or
  quantile, auto) bins measurements for them.
  --model gaussian chooses mclust's covariance structure by BIC (EDDA); --model mixture
  chooses the components of each class by BIC (--components N fixes them).
The training accuracy is computed on a random sample of at most 5,000 rows (said so).
A table written by pandas with its index (first header cell empty) keeps the index as
row ids, not a feature; --id-column names another id column.
loss.csv: the header row names the classes, each row the action it costs, e.g.
  action,apple,orange,grapefruit
  apple,0,2,3
  orange,1,0,2
  grapefruit,1,1,0
  reject,0.3,0.3,0.3      (optional: a row that is not a class is the reject action)
""",
    "predict": """examples:
  bayesrule predict fruit.model new.csv                 # decisions as CSV on stdout
  bayesrule predict fruit.model new.csv --proba --risk -o decisions.csv

  bayesrule predict fruit.model new.csv --priors apple=0.2,orange=0.6,grapefruit=0.2
  bayesrule predict fruit.model new.csv --loss loss.csv --risk   # another loss, no refit
  bayesrule predict fruit.model new.csv --set 0.1 --calibration held.csv
  bayesrule predict fruit.model new.csv --max-error 0.05 --calibration held.csv

Columns: the row ids (the index pandas wrote, or --id-column), decision, then P(<class>)
with --proba and R(<action>) with --risk (6 significant digits). Columns of the data that
are not features of the model are ignored. --priors, --loss and --reject-cost decide
under other priors or another loss without refitting (as in fit).
--set ALPHA adds the columns set (the classes, joined by |) and set_size: conformal sets
that miss the true class with probability at most ALPHA. --max-error E abstains (the
reject label) where needed so that the error on the rows decided is at most E with
probability --confidence. Both are calibrated on --calibration: labelled rows like the
training data that the model was not fitted on (their labels in --target, default the
model's target).
""",
    "evaluate": """examples:
  bayesrule evaluate fruit.model test.csv --target fruit
  bayesrule evaluate fruit.model test.csv --json > report.json
  bayesrule evaluate fruit.model test.csv --set 0.1 --calibration held.csv

The report: per-class accuracy and error (and reject rate), the confusion matrix, log
loss, Brier score and expected calibration error with a reliability table, expected and
empirical risk, and the accuracy on accepted samples when the model can reject. --target
defaults to the target column the model was trained on. With --set or --max-error (and
--calibration, as in predict): the coverage and mean size of the sets per class, or the
error and share of the rows decided.
""",
    "calibrate": """examples:
  bayesrule calibrate cancer.csv --target diagnosis --model gaussian-nb -o calibrated.model
  bayesrule calibrate digits.csv --target digit --model gaussian-nb --method vector --cv 10 \\
      -o digits.model

Takes fit's options. The model is fitted on all rows; the calibration map (temperature,
vector, isotonic or dirichlet) is fitted on its posteriors of held-out folds (--cv).
The output says the held-out Brier score and expected calibration error (ECE) before and
after. predict, evaluate and shift take the calibrated model as any other.
""",
    "shift": """examples:
  bayesrule shift fruit.model new.csv                          # EM of Saerens et al.
  bayesrule shift fruit.model new.csv --validation held.csv    # MLLS after BCTS, and a test
  bayesrule shift fruit.model new.csv --validation held.csv --method bbse --json

Prints, per class, the training prior, the estimated prior of the new rows and its
bootstrap interval (--confidence). With --validation (labelled rows like the training
data that the model was not fitted on), also the test of "no shift": a chi-square test
of the predicted labels of the validation rows against the new rows, with its p-value.
Decide under the new priors with: bayesrule predict MODEL new.csv --priors a=..,b=..
""",
    "explain": """examples:
  bayesrule explain fruit.model new.csv --row 0          # the terms of the first row
  bayesrule explain fruit.model new.csv --row 3 --against orange -o why.png

Breaks the log posterior odds of the class decided for the row against every other
class into the prior's term and the likelihood's terms (per feature for naive Bayes,
per attribute given its parents for the semi-naive models, the quadratic, linear and
constant parts for LDA/QDA); they sum to the log odds. -o also draws them as a
waterfall (against the runner-up, or --against). Rows count from 0, in file order.
""",
    "explore": """examples:
  bayesrule explore                      # the fruit of seed 003 at http://localhost:5006/
  bayesrule explore fruit.model --port 8080 --no-browser

Drag the class means, change priors, loss entries and the reject cost, and see the
decision regions, posteriors and risks recomputed; click a point for its numbers. Needs
bokeh (pip install bayesrule[explore]). Serves this machine only unless --address
0.0.0.0 is given (then anyone on the network can reach it).
""",
    "inspect": """example:
  bayesrule inspect fruit.model

Shows the training metadata (data, columns, classes, library version, date), every
parameter, the priors, the loss matrix and the fitted summary.
""",
    "plot": """examples:
  bayesrule plot fruit.model fruit.csv --kind regions -o regions.png
  bayesrule plot wine.model wine.csv --kind posterior --features alcohol,proline -o p.png
  bayesrule plot modes.model modes.csv --kind bic -o bic.png     (mixture models)

With more than two features, --features A,B names the two axes of a slice through the
data; the other features are held at their means (the title says so).
""",
    "compare": """examples:
  bayesrule compare fruit.csv --target fruit
  bayesrule compare wine.csv --target class --cv 10

  bayesrule compare big.csv --target y --skip kernel-nb,mixture --time-limit 60

Every model family that can take the data is cross-validated (stratified folds):
accuracy and log loss on the held-out folds, BIC of the model fitted on all the data
(lower is better; none for complement-nb), and the mean times of one fit and of one
prediction of a held-out fold. Rows are sorted by log loss (best first; ties by
accuracy): log loss rewards calibrated posteriors, which Bayes decisions under a loss
rely on. --models or --skip pick the models; --time-limit S runs each model in a worker
process and stops it after S seconds (reported as skipped, with the reason).
""",
    "demo": """examples:
  bayesrule demo                      # the fruit example, figure in ./bayesrule-fruit.png
  bayesrule demo fruit -o regions.png
  bayesrule demo text                 # sports or not: multinomial naive Bayes (seed 000)
  bayesrule demo mixture -o modes.png # one mode against two: mixtures chosen by BIC
""",
}

#: the one-line help of each command (``bayesrule --help``)
HELP = {
    "fit": "fit a model to a CSV or Parquet table and save it",
    "predict": "decide (and give posteriors and risks) for new data",
    "evaluate": "the accuracy report of a model on labelled data",
    "calibrate": "fit a model whose posteriors are recalibrated on held-out folds",
    "shift": "estimate the class priors of new data, and test for a shift",
    "inspect": "show a saved model: metadata, parameters, priors, loss",
    "explain": "why a model decides a row as it does: the log-odds terms",
    "explore": "an interactive explorer of Bayes decisions in the browser",
    "plot": "draw a fitted model over data into a figure (PNG, JPEG, SVG, PDF)",
    "compare": "cross-validate every applicable model family on the data",
    "demo": "run a worked example of the source documents",
}
