// Times one Weka 3.6 classifier trained on an ARFF file and scoring its every row,
// REPEAT times in one JVM, so that the later repeats run warm (JIT-compiled).
//
// Usage (Java 11+ runs a single source file directly):
//   java -cp /usr/share/java/weka.jar benchmarks/WekaSpeed.java TRAIN.arff REPEAT CLASS [OPTIONS...]
// Prints one line per repeat: "<build seconds> <score seconds> <checksum>", the scoring
// being distributionForInstance of every row (the checksum, the sum of the largest
// posterior of each row, keeps the work from being optimised away). The file is read
// once, before the first repeat, and not timed. Used by benchmarks/weka_compare.py --speed.

import java.io.BufferedReader;
import java.io.FileReader;

import weka.classifiers.Classifier;
import weka.core.Instances;

public class WekaSpeed {
  public static void main(String[] args) throws Exception {
    Instances data;
    try (BufferedReader reader = new BufferedReader(new FileReader(args[0]))) {
      data = new Instances(reader);
    }
    data.setClassIndex(data.numAttributes() - 1);
    int repeat = Integer.parseInt(args[1]);
    String[] options = new String[args.length - 3];
    System.arraycopy(args, 3, options, 0, options.length);
    for (int r = 0; r < repeat; r++) {
      Classifier model = Classifier.forName(args[2], options.clone());
      long start = System.nanoTime();
      model.buildClassifier(data);
      long built = System.nanoTime();
      double checksum = 0.0;
      for (int i = 0; i < data.numInstances(); i++) {
        double[] dist = model.distributionForInstance(data.instance(i));
        double top = 0.0;
        for (double p : dist) top = Math.max(top, p);
        checksum += top;
      }
      long scored = System.nanoTime();
      System.out.println((built - start) / 1e9 + " " + (scored - built) / 1e9 + " " + checksum);
    }
  }
}
