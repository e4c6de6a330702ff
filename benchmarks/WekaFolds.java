// Runs one Weka 3.6 classifier over many (train, test) ARFF pairs in one JVM.
//
// Usage (Java 11+ runs a single source file directly, no javac step):
//   java -cp /usr/share/java/weka.jar benchmarks/WekaFolds.java LIST OUT CLASS [OPTIONS...]
// LIST: one line per fold, "KEY<TAB>TRAIN.arff<TAB>TEST.arff". For each fold a fresh
// classifier (CLASS with OPTIONS, as on Weka's command line) is trained on TRAIN (class:
// the last attribute) and scores every row of TEST. OUT gets, per fold:
//   # KEY <build seconds> <test seconds>
//   one line per test row: the class distribution, full double precision, space separated
// or, where Weka refused the data, "! KEY <exception>: <message>". The first line of OUT
// is "@ <the classifier's options after setOptions>" (Weka's defaults spelled out).
// Used by benchmarks/weka_compare.py; distributionForInstance is what Weka's own
// "-p 0 -distribution" prints (rounded there to 3 decimals).

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import weka.classifiers.Classifier;
import weka.core.Instances;
import weka.core.Utils;

public class WekaFolds {
  static Instances load(String path) throws Exception {
    try (BufferedReader reader = new BufferedReader(new FileReader(path))) {
      Instances data = new Instances(reader);
      data.setClassIndex(data.numAttributes() - 1);
      return data;
    }
  }

  public static void main(String[] args) throws Exception {
    String[] options = new String[args.length - 3];
    System.arraycopy(args, 3, options, 0, options.length);
    List<String[]> folds = new ArrayList<>();
    try (BufferedReader list = new BufferedReader(new FileReader(args[0]))) {
      for (String line = list.readLine(); line != null; line = list.readLine()) {
        if (!line.isEmpty()) folds.add(line.split("\t"));
      }
    }
    try (PrintWriter out = new PrintWriter(args[1])) {
      Classifier shown = Classifier.forName(args[2], options.clone());
      out.println("@ " + Utils.joinOptions(shown.getOptions()));
      for (String[] fold : folds) {
        try {
          Instances train = load(fold[1]);
          Instances test = load(fold[2]);
          Classifier model = Classifier.forName(args[2], options.clone());
          long start = System.nanoTime();
          model.buildClassifier(train);
          long built = System.nanoTime();
          StringBuilder rows = new StringBuilder();
          for (int i = 0; i < test.numInstances(); i++) {
            double[] dist = model.distributionForInstance(test.instance(i));
            for (int c = 0; c < dist.length; c++) {
              if (c > 0) rows.append(' ');
              rows.append(Double.toString(dist[c]));
            }
            rows.append('\n');
          }
          long tested = System.nanoTime();
          out.println("# " + fold[0] + " " + (built - start) / 1e9 + " " + (tested - built) / 1e9);
          out.print(rows);
        } catch (Exception | OutOfMemoryError e) {
          String message = String.valueOf(e.getMessage()).replace('\n', ' ');
          out.println("! " + fold[0] + " " + e.getClass().getSimpleName() + ": " + message);
        }
      }
    }
  }
}
