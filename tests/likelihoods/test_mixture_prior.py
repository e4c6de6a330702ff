"""Conjugate-prior MAP EM for mixtures (mclust's ``priorControl()``): EM from a given
partition against R's mclust 6.0.0 (``me(..., prior = priorControl())``) on every model
with a prior, on iris and scaled wine; the properties (a prior keeps duplicated rows from
collapsing a component, ``prior=None`` never reaches the MAP code, integer weights equal
repeated rows, saving and loading, refusals that name the fix)."""

import os
import tempfile
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine

from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.io import load, save
from bayesrule.likelihoods.conjugate import NormalGamma, NormalInverseWishart
from bayesrule.likelihoods.mixture import Mixture, em_small, map_step, steps
from bayesrule.likelihoods.mixture.em import fit_mixture
from bayesrule.likelihoods.mixture.map_step import PRIOR_MODELS
from bayesrule.likelihoods.parametrisation import n_covariance_parameters

#: the starting partitions (k = 2): iris's are tests/likelihoods/test_mixture_mclust.py's;
#: scaled wine's class 1 (sklearn's label 0, 59 rows; every feature centred and scaled
#: by its standard deviation over all 178 rows) from
#: ``KMeans(2, n_init=10, random_state=0).fit(W).labels_``
PARTITIONS = {
    "iris0": "01110010110111000000001011000110001100100110010101",
    "iris1": "11101110100101011010101111111000010111000100000100",
    "iris2": "00100101010000000110101001000111000100000001000000",
    "wine": "11010110111001100010100000000101000000011010101111101011101",
}

#: mclust 6.0.0's EM with its default conjugate prior from those partitions, per data
#: set and model: the log-likelihood, the weights, the means (component by component)
#: and, for iris, each covariance's lower triangle row by row (= R's upper triangle
#: column by column), for wine each covariance's diagonal and then both ``ln |Sigma_k|``:
#:
#:     library(mclust)
#:     models <- c("EII", "VII", "EEI", "VEI", "EVI", "VVI", "EEE", "EEV", "VEV", "VVV")
#:     fit <- function(X, lab, m)
#:       me(modelName = m, data = X, z = unmap(lab), prior = priorControl(), warn = FALSE,
#:          control = emControl(tol = c(1e-12, 1e-12), itmax = c(1e5, 1e5)))
#:     show <- function(x) paste(sprintf("%.10g", x), collapse = " ")
#:     starts <- c("0111...", "1110...", "0010...")             # PARTITIONS, as strings
#:     for (cl in 1:3) {
#:       X <- as.matrix(iris[as.integer(iris$Species) == cl, 1:4])
#:       lab <- as.integer(strsplit(starts[cl], "")[[1]]) + 1
#:       for (m in models) {
#:         f <- fit(X, lab, m); S <- f$parameters$variance$sigma
#:         upper <- unlist(lapply(1:2, function(k) S[, , k][upper.tri(S[, , k], diag = TRUE)]))
#:         cat(cl - 1, m, show(c(f$loglik, f$parameters$pro, f$parameters$mean, upper)), "\n")
#:       }
#:     }
#:     W <- as.matrix(read.csv("wine1.csv", header = FALSE))  # data()["wine"] below,
#:     lab <- as.integer(strsplit("1101...", "")[[1]]) + 1    # written with 17 digits
#:     for (m in models) {
#:       f <- fit(W, lab, m); S <- f$parameters$variance$sigma
#:       v <- c(sapply(1:2, function(k) diag(S[, , k])))
#:       ld <- sapply(1:2, function(k) determinant(S[, , k])$modulus)
#:       cat("wine", m, show(c(f$loglik, f$parameters$pro, f$parameters$mean, v, ld)), "\n")
#:     }
MCLUST_PRIOR_ME = {
    ("iris0", "EII"): (
        "9.345505594 0.5236430985 0.4763569015 5.255738248 3.682218615 1.500847036 0.2804963024 "
        "4.731481559 3.148556629 1.41929838 0.2080808136 0.03712930788 0 0.03712930788 0 0 "
        "0.03712930788 0 0 0 0.03712930788 0.03712930788 0 0.03712930788 0 0 0.03712930788 0 0 "
        "0 0.03712930788"
    ),
    ("iris0", "VII"): (
        "9.305257107 0.5529281549 0.4470718451 5.240544518 3.668590422 1.502631093 0.2801058047 "
        "4.715945578 3.130468783 1.411752702 0.2038223378 0.03938814385 0 0.03938814385 0 0 "
        "0.03938814385 0 0 0 0.03938814385 0.03228675338 0 0.03228675338 0 0 0.03228675338 0 0 "
        "0 0.03228675338"
    ),
    ("iris0", "EEI"): (
        "34.9131228 0.4978217185 0.5021782815 5.266292014 3.684936782 1.513696013 0.2921071895 "
        "4.747966106 3.173292229 1.410752467 0.2002928056 0.04803439273 0 0.06594101255 0 0 "
        "0.02413876524 0 0 0 0.008509149921 0.04803439273 0 0.06594101255 0 0 0.02413876524 0 0 "
        "0 0.008509149921"
    ),
    ("iris0", "VEI"): (
        "37.13995037 0.5257158528 0.4742841472 5.245526157 3.669340037 1.519050289 0.2876291353 "
        "4.740510407 3.160499912 1.398765745 0.1998584749 0.0661247209 0 0.08638335414 0 0 "
        "0.03102432192 0 0 0 0.01130321768 0.04553939101 0 0.05949129596 0 0 0.02136612008 0 0 "
        "0 0.007784405633"
    ),
    ("iris0", "EVI"): (
        "40.05275693 0.4708611787 0.5291388213 5.278543174 3.698400735 1.514310857 0.2975274255 "
        "4.763462511 3.187369077 1.415448315 0.2001454947 0.04380587687 0 0.06105333915 0 0 "
        "0.01981356216 0 0 0 0.01275984366 0.05708013221 0 0.0744801221 0 0 0.03179079854 0 0 0 "
        "0.005002912729"
    ),
    ("iris0", "VVI"): (
        "39.45427641 0.4987515454 0.5012484546 5.26794836 3.687602991 1.510168295 0.2931009484 "
        "4.745355984 3.169689674 1.414071554 0.1991335858 0.0430195075 0 0.05876230174 0 0 "
        "0.01925713325 0 0 0 0.01229874184 0.03882322707 0 0.05289178023 0 0 0.02401772655 0 0 "
        "0 0.003690690892"
    ),
    ("iris0", "EEE"): (
        "52.6769357 0.1942623618 0.8057376382 5.255306005 3.704234228 1.588974737 0.4232002793 "
        "4.945845675 3.361348242 1.431362633 0.2032438571 0.086125645 0.06508873059 "
        "0.09875334849 0.006839810513 0.002510285289 0.02070697427 -0.0003123254122 "
        "-0.002041223336 0.0004783432783 0.002747327991 0.086125645 0.06508873059 0.09875334849 "
        "0.006839810513 0.002510285289 0.02070697427 -0.0003123254122 -0.002041223336 "
        "0.0004783432783 0.002747327991"
    ),
    ("iris0", "EEV"): (
        "57.94989193 0.2237909084 0.7762090916 5.331611798 3.729396238 1.551962723 0.394740457 "
        "4.912062302 3.341048394 1.436046115 0.2030889748 0.07242264607 0.05812570759 "
        "0.08907393791 -0.02183538425 -0.0137623366 0.02974760023 -0.01642996808 -0.01054132181 "
        "0.007847649439 0.007326630496 0.07758072977 0.05761858853 0.09744714357 0.01415753311 "
        "0.007126892933 0.02058799255 0.0007205831255 -0.00100161409 0.0001628479635 "
        "0.002954948816"
    ),
    ("iris0", "VEV"): (
        "59.01819199 0.2320082229 0.7679917771 5.330184386 3.728129249 1.542438561 0.3873915741 "
        "4.908005876 3.337277238 1.437685114 0.2032602999 0.1037389243 0.08419076391 "
        "0.131566695 -0.0317989879 -0.02001219172 0.04310580986 -0.02379195995 -0.01520178442 "
        "0.01275331379 0.01123906826 0.09143056495 0.06751228454 0.1144718208 0.01803025779 "
        "0.008916344579 0.02467814962 0.001092702985 -0.001137138146 0.0002978946844 "
        "0.003608770071"
    ),
    ("iris0", "VVV"): (
        "52.24068511 0.1996380167 0.8003619833 5.294603802 3.727872725 1.552205693 0.4104773152 "
        "4.933958094 3.353145121 1.439482659 0.2049428162 0.03681217723 0.03231615189 "
        "0.05187480513 -0.01371562059 -0.008075790825 0.01714234973 -0.007395912903 "
        "-0.005975732202 0.004288865426 0.004326766343 0.08486889749 0.06172736937 "
        "0.09575331557 0.01539782412 0.008256987325 0.02003206331 0.00174335404 "
        "-0.0003024998097 0.0005085218159 0.002441689621"
    ),
    ("iris1", "EII"): (
        "-53.0412599 0.4897499171 0.5102500829 5.534956957 2.610607048 3.90248032 1.190567232 "
        "6.320936769 2.922991578 4.603161346 1.455993658 0.06785788197 0 0.06785788197 0 0 "
        "0.06785788197 0 0 0 0.06785788197 0.06785788197 0 0.06785788197 0 0 0.06785788197 0 0 "
        "0 0.06785788197"
    ),
    ("iris1", "VII"): (
        "-52.8579279 0.5171361382 0.4828638618 5.548132355 2.624122937 3.926153902 1.201720558 "
        "6.351385968 2.926226707 4.617531715 1.459096784 0.0738311758 0 0.0738311758 0 0 "
        "0.0738311758 0 0 0 0.0738311758 0.05819565078 0 0.05819565078 0 0 0.05819565078 0 0 0 "
        "0.05819565078"
    ),
    ("iris1", "EEI"): (
        "-32.91090987 0.4268770946 0.5731229054 5.525491766 2.560725934 3.839169718 1.161274004 "
        "6.241757388 2.925872858 4.573445522 1.448692278 0.1188358116 0 0.05698496035 0 0 "
        "0.07479031614 0 0 0 0.01752665042 0.1188358116 0 0.05698496035 0 0 0.07479031614 0 0 0 "
        "0.01752665042"
    ),
    ("iris1", "VEI"): (
        "-32.51899364 0.4205619167 0.5794380833 5.524279482 2.555785061 3.835370982 1.160110545 "
        "6.234869793 2.925499597 4.568240132 1.446419909 0.1337255655 0 0.06326128356 0 0 "
        "0.08360360849 0 0 0 0.02127842432 0.1293410592 0 0.061187114 0 0 0.08086246809 0 0 0 "
        "0.02058076127"
    ),
    ("iris1", "EVI"): (
        "-30.16735798 0.4471237248 0.5528762752 5.535051096 2.57596404 3.854074322 1.167144699 "
        "6.260284308 2.926934752 4.588309483 1.454480913 0.08366595699 0 0.05592713705 0 0 "
        "0.1037840626 0 0 0 0.01911988103 0.1455373191 0 0.06491794986 0 0 0.05077910508 0 0 0 "
        "0.01935365585"
    ),
    ("iris1", "VVI"): (
        "-32.56605547 0.4554313493 0.5445686507 5.538468471 2.581644847 3.858587456 1.168990431 "
        "6.268485774 2.927535703 4.595731762 1.457319014 0.07174007364 0 0.04869960428 0 0 "
        "0.08886085622 0 0 0 0.01636055873 0.1210511066 0 0.05560327575 0 0 0.04075853235 0 0 0 "
        "0.01617455468"
    ),
    ("iris1", "EEE"): (
        "-8.354607609 0.5527030073 0.4472969927 5.580674476 2.64704082 4.003938571 1.210035869 "
        "6.375020941 2.921921692 4.57637561 1.46927899 0.08636046241 0.02435034254 "
        "0.06286105456 0.05505180306 0.03432701969 0.1099038247 0.003588727122 0.01852238069 "
        "0.02854834991 0.01766283683 0.08636046241 0.02435034254 0.06286105456 0.05505180306 "
        "0.03432701969 0.1099038247 0.003588727122 0.01852238069 0.02854834991 0.01766283683"
    ),
    ("iris1", "EEV"): (
        "-1.779108092 0.5354423956 0.4645576044 5.595576691 2.67207599 4.004083185 1.20966773 "
        "6.328344644 2.882859372 4.554949226 1.460075258 0.09039209226 0.03162391475 "
        "0.06462287565 0.06722296976 0.04926386524 0.1409556935 0.009082612215 0.02964890602 "
        "0.03377701323 0.02194206242 0.1488050126 0.05387839567 0.07978756051 0.06724901178 "
        "0.03243420013 0.07506752074 0.007339041278 0.01586420177 0.02098377841 0.01425263002"
    ),
    ("iris1", "VEV"): (
        "-0.271875138 0.5120377411 0.4879622589 5.599925353 2.674244513 4.000145015 1.208282845 "
        "6.28864938 2.870478015 4.532670671 1.449522801 0.1138704652 0.04234682316 "
        "0.07844355978 0.08752000453 0.06351608099 0.1752837549 0.01410471457 0.03685494273 "
        "0.04237681696 0.02710709513 0.2141404922 0.07161315925 0.1003881827 0.1008181656 "
        "0.0456690032 0.1085269167 0.01599656804 0.02264121465 0.03252267125 0.0208062809"
    ),
    ("iris1", "VVV"): (
        "2.475824484 0.7454008996 0.2545991004 5.710875905 2.746998146 4.131613068 1.286694102 "
        "6.594764992 2.837308728 4.635689758 1.441018118 0.1039124858 0.05441579216 "
        "0.0732306815 0.09331631754 0.07117284734 0.1619356896 0.02919450149 0.03800859102 "
        "0.05460714558 0.03190734688 0.03615292155 0.03459187441 0.05170796018 0.01586841734 "
        "0.009217517862 0.02996589693 0.003173661456 0.002921637698 0.01036188202 "
        "0.007007414865"
    ),
    ("iris2", "EII"): (
        "-89.44248294 0.7461807969 0.2538192031 6.300239166 2.920653681 5.307210429 2.011408318 "
        "7.433523324 3.130746686 6.271261507 2.068874519 0.1023298546 0 0.1023298546 0 0 "
        "0.1023298546 0 0 0 0.1023298546 0.1023298546 0 0.1023298546 0 0 0.1023298546 0 0 0 "
        "0.1023298546"
    ),
    ("iris2", "VII"): (
        "-89.70678524 0.756410693 0.243589307 6.307875032 2.923796916 5.31371754 2.013846071 "
        "7.457379992 3.129807448 6.291519954 2.063720245 0.1065565193 0 0.1065565193 0 0 "
        "0.1065565193 0 0 0 0.1065565193 0.0829285033 0 0.0829285033 0 0 0.0829285033 0 0 0 "
        "0.0829285033"
    ),
    ("iris2", "EEI"): (
        "-85.75256173 0.7349812139 0.2650187861 6.29680445 2.914966859 5.300170949 2.003274917 "
        "7.39557769 3.137717636 6.250401892 2.08902387 0.1417078579 0 0.08224667248 0 0 "
        "0.1085078681 0 0 0 0.06520131659 0.1417078579 0 0.08224667248 0 0 0.1085078681 0 0 0 "
        "0.06520131659"
    ),
    ("iris2", "VEI"): (
        "-85.05119071 0.7417257383 0.2582742617 6.302519416 2.91714538 5.305166433 2.004538298 "
        "7.407444813 3.13719577 6.260512234 2.087603772 0.1553761699 0 0.09167627539 0 0 "
        "0.1199868642 0 0 0 0.07280400442 0.1514119966 0 0.08933730255 0 0 0.1169255922 0 0 0 "
        "0.07094652724"
    ),
    ("iris2", "EVI"): (
        "-83.01522027 0.7824741018 0.2175258982 6.333792564 2.928302412 5.33177537 2.0110291 "
        "7.501816768 3.13827223 6.343656463 2.079816912 0.1643159122 0 0.06810251025 0 0 "
        "0.111994159 0 0 0 0.06997981394 0.07661870523 0 0.1610984775 0 0 0.1139336016 0 0 0 "
        "0.06236383702"
    ),
    ("iris2", "VVI"): (
        "-85.55238457 0.8124513217 0.1875486783 6.363531892 2.934197063 5.353161927 2.007060359 "
        "7.559587688 3.14628302 6.412650654 2.107978336 0.1727608378 0 0.06486344965 0 0 "
        "0.1146745437 0 0 0 0.06745151743 0.03510636523 0 0.1005901488 0 0 0.0537894294 0 0 0 "
        "0.03185998894"
    ),
    ("iris2", "EEE"): (
        "-53.76889057 0.7482037786 0.2517962214 6.341989776 2.965729269 5.326319845 2.057050327 "
        "7.318625959 2.998563251 6.222247671 1.933783608 0.17631819 0.06918157529 0.08189809724 "
        "0.1083805007 0.05191730496 0.1202233482 0.05674725548 0.03818458077 0.05504620371 "
        "0.0572430828 0.17631819 0.06918157529 0.08189809724 0.1083805007 0.05191730496 "
        "0.1202233482 0.05674725548 0.03818458077 0.05504620371 0.0572430828"
    ),
    ("iris2", "EEV"): (
        "-46.09044933 0.7761352723 0.2238647277 6.337519699 2.95546597 5.335896421 2.036855123 "
        "7.455859456 3.03821636 6.300751632 1.988389375 0.1646359455 0.05832868646 "
        "0.06984984483 0.09452825586 0.05177719947 0.1095789039 0.04200186316 0.04935824775 "
        "0.04541128874 0.07108566632 0.124339307 0.07071416806 0.1102725867 0.09848899435 "
        "0.05312619725 0.1312277998 0.0491238131 0.02309755564 0.04120350406 0.04931066694"
    ),
    ("iris2", "VEV"): (
        "-44.83573795 0.7855501321 0.2144498679 6.347189715 2.95478726 5.343056464 2.035017414 "
        "7.469513301 3.044330408 6.316861457 1.992990736 0.2076028151 0.07135136353 "
        "0.08623475632 0.1209276904 0.06248913756 0.1378446657 0.05033808687 0.06053701787 "
        "0.05385074519 0.08743133194 0.1599685615 0.08961030423 0.1428381317 0.1244553719 "
        "0.06765476256 0.1685064605 0.06399191645 0.02966730668 0.05359985119 0.06107989273"
    ),
    ("iris2", "VVV"): (
        "-43.65256722 0.8214392606 0.1785607394 6.384649016 2.946349648 5.369493991 2.038601164 "
        "7.522663579 3.10108951 6.390853672 1.968081182 0.189730591 0.0574152867 0.06626388861 "
        "0.1120812133 0.04540768301 0.1205425835 0.05061840713 0.04482306304 0.04456539624 "
        "0.06286346738 0.03861867263 0.01849927871 0.07409942815 0.03866817094 0.001360722901 "
        "0.0621303795 0.0180494228 0.004893666908 0.02986487574 0.02055058688"
    ),
    ("wine", "EII"): (
        "-687.4833018 0.4955815468 0.5044184532 0.6578213475 -0.1885412498 0.7117344836 "
        "-0.3363714419 0.4394128493 0.5936721569 0.735319018 -0.3610821154 0.1531501489 "
        "-0.07159085791 0.5597612642 0.6609362821 1.033250247 1.170865144 -0.3926951263 "
        "-0.05557894676 -1.128473544 0.4840392588 1.14328366 1.169232335 -0.7898430492 "
        "0.9178213155 0.4724425674 0.3571421317 0.8755302082 1.306727352 0.305537032 "
        "0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 "
        "0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 "
        "0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 0.305537032 "
        "0.305537032 0.305537032 0.305537032 0.305537032 -15.41389577 -15.41389577"
    ),
    ("wine", "VII"): (
        "-687.7422946 0.5028463897 0.4971536103 0.6581146167 -0.188170584 0.7044881834 "
        "-0.3461771346 0.4367645719 0.5934098135 0.7370056802 -0.3684082571 0.1570999433 "
        "-0.07079312744 0.5581350306 0.6640935846 1.034613485 1.178063007 -0.3960522932 "
        "-0.05945853222 -1.13012655 0.4873697484 1.151577673 1.173864925 -0.7886963405 "
        "0.9249965434 0.4795828879 0.3558271418 0.8754715299 1.309343433 0.310767954 "
        "0.310767954 0.310767954 0.310767954 0.310767954 0.310767954 0.310767954 0.310767954 "
        "0.310767954 0.310767954 0.310767954 0.310767954 0.310767954 0.289072067 0.289072067 "
        "0.289072067 0.289072067 0.289072067 0.289072067 0.289072067 0.289072067 0.289072067 "
        "0.289072067 0.289072067 0.289072067 0.289072067 -15.19321406 -16.13403032"
    ),
    ("wine", "EEI"): (
        "-643.7258412 0.4771362248 0.5228637752 0.6478923872 -0.1732098094 0.4174262984 "
        "-0.5702527989 0.3202602827 0.4939502287 0.6388560258 -0.4674335166 0.07410845586 "
        "-0.207225742 0.4491888716 0.8381646333 0.9000185259 1.161825391 -0.3994831198 "
        "0.2400613249 -0.8871008612 0.5911967884 1.214893823 1.241950448 -0.6776658737 "
        "0.9629724721 0.5770216813 0.465192785 0.7062305818 1.418658797 0.2007853731 "
        "0.2846296564 0.5217921439 0.4288666865 0.4028006709 0.1278606135 0.05506791927 "
        "0.2378479792 0.2473085767 0.1033876971 0.2027770303 0.1942949608 0.3301932273 "
        "0.2007853731 0.2846296564 0.5217921439 0.4288666865 0.4028006709 0.1278606135 "
        "0.05506791927 0.2378479792 0.2473085767 0.1033876971 0.2027770303 0.1942949608 "
        "0.3301932273 -19.66911091 -19.66911091"
    ),
    ("wine", "VEI"): (
        "-632.702597 0.473335135 0.526664865 0.648679316 -0.1724699186 0.4247234369 "
        "-0.5679363661 0.3157188551 0.4924423853 0.637501809 -0.4645839059 0.0724498511 "
        "-0.2076446962 0.4538586043 0.835163537 0.9036414796 1.157417674 -0.3985188894 "
        "0.2347799243 -0.8869014236 0.5933276913 1.211058058 1.238825151 -0.6787133019 "
        "0.958063138 0.5717514482 0.460880522 0.7098778452 1.411668243 0.2423019008 "
        "0.3454843398 0.6273087019 0.5088042078 0.4799159687 0.1538853568 0.06993463527 "
        "0.2852132963 0.2928530339 0.1265997868 0.2431637942 0.2348731197 0.3921856387 "
        "0.265165671 0.3780844742 0.6865019725 0.5568153147 0.525201162 0.1684060824 "
        "0.07653371444 0.3121262146 0.320486843 0.1385458277 0.2661088932 0.2570359051 "
        "0.4291925391 -17.23634981 -16.0641355"
    ),
    ("wine", "EVI"): (
        "-611.2221218 0.4513508164 0.5486491836 0.6719332711 -0.01115595019 0.3838400835 "
        "-0.6198418244 0.3247447775 0.537286396 0.6552458381 -0.5356944866 0.1265500904 "
        "-0.2501055607 0.3817634844 0.8849397982 0.7908347713 1.11790754 -0.5221790401 "
        "0.2760238617 -0.8314211724 0.5747816236 1.145378337 1.20013938 -0.6116322024 "
        "0.8780786854 0.5754638755 0.5199128402 0.6739448984 1.484125503 0.2429341233 "
        "0.4977032113 0.7258949772 0.4695815232 0.379449926 0.114521114 0.05558011293 "
        "0.1982820422 0.186046167 0.05057924461 0.179128313 0.216335037 0.2346197565 "
        "0.1970242693 0.03401669163 0.3612529123 0.4225041009 0.4356921937 0.2030451288 "
        "0.0880912853 0.2945533176 0.3915498294 0.1352952434 0.2250959389 0.1742077425 "
        "0.3461842943 -20.19934635 -20.19934635"
    ),
    ("wine", "VVI"): (
        "-673.1310341 0.8815441898 0.1184558102 0.8596467983 -0.2572768338 0.337888345 "
        "-0.674564805 0.4382207519 0.7481874811 0.8672734935 -0.5758710379 0.4830222566 "
        "0.08030516044 0.463751196 0.7895589916 1.044215817 1.339998357 -0.5460407 0.2265778529 "
        "-1.191968477 0.6380975858 1.783039529 1.600238734 -0.5883967475 0.9539160944 "
        "1.113518123 0.4115148048 0.6177170487 2.115015732 0.2440997416 0.310340948 "
        "0.5642174139 0.4344765947 0.4435002252 0.1266496975 0.08611780066 0.2512131592 "
        "0.3771296097 0.135114029 0.1863329415 0.2024985007 0.2872513006 0.03941791026 "
        "0.01982954708 0.0357430472 0.09417879691 0.02995667063 0.08979724457 0.02183616476 "
        "0.0596309139 0.1201190526 0.04859495268 0.1082331786 0.04062774427 0.08885834763 "
        "-18.20051418 -38.40104074"
    ),
    ("wine", "EEE"): (
        "-537.4216798 0.5945472698 0.4054527302 0.6945948175 -0.2224503356 0.6202904452 "
        "-0.4345536456 0.3901344214 0.634012542 0.8092416956 -0.4380937038 0.2217527981 "
        "0.01002486996 0.6129393738 0.6708200779 1.190629596 1.242123447 -0.3927886476 "
        "-0.1087181115 -1.177781382 0.5671786682 1.21823418 1.166716421 -0.7815411209 "
        "1.003805484 0.4855148787 0.2297372232 0.9133964374 1.14270459 0.1646670395 "
        "0.2440204139 0.3646884916 0.2931374126 0.3486743721 0.1380080788 0.08343584073 "
        "0.1886808203 0.2425886483 0.1510566646 0.146744273 0.1562297161 0.3234745025 "
        "0.1646670395 0.2440204139 0.3646884916 0.2931374126 0.3486743721 0.1380080788 "
        "0.08343584073 0.1886808203 0.2425886483 0.1510566646 0.146744273 0.1562297161 "
        "0.3234745025 -26.42567286 -26.42567286"
    ),
    ("wine", "EEV"): (
        "-469.1339515 0.54227291 0.45772709 0.6475392104 -0.1994196038 0.6755129822 "
        "-0.4280060547 0.3833990744 0.580654325 0.747565063 -0.3964308766 0.1640146186 "
        "-0.07376540874 0.5758648905 0.6872995992 1.0575028 1.235360453 -0.400625612 "
        "-0.09091188554 -1.100689601 0.5549459129 1.214748562 1.198970994 -0.7916879323 "
        "0.9829237674 0.5304932975 0.3174042216 0.8661811581 1.30588307 0.1415424069 "
        "0.2904184014 0.4650673619 0.3351917031 0.3468330693 0.08663855713 0.05655388365 "
        "0.1962159541 0.244715981 0.1134649097 0.1508097791 0.1856004791 0.2456994973 "
        "0.1885635232 0.1741535619 0.181454182 0.2748263498 0.373898494 0.1917994468 "
        "0.09946953938 0.1644758546 0.2395852243 0.164667401 0.1859415207 0.152128136 "
        "0.46778875 -27.8872221 -27.8872221"
    ),
    ("wine", "VEV"): (
        "-439.0808044 0.5246186505 0.4753813495 0.6425922328 -0.2272962516 0.6746053714 "
        "-0.4012915895 0.3595097334 0.579182937 0.739571671 -0.3593486949 0.1655970514 "
        "-0.07667243363 0.5940077798 0.6754409327 1.081828949 1.218997463 -0.3623931546 "
        "-0.06145769124 -1.105197436 0.5749402218 1.192832299 1.191034092 -0.8179360587 "
        "0.9507764652 0.5112689223 0.3069779095 0.872626875 1.269817431 0.2099169213 "
        "0.3948904178 0.684603018 0.4684948063 0.4881561539 0.1289636994 0.08042486871 "
        "0.2485217816 0.354184363 0.1637347126 0.2101634373 0.2695621645 0.3390689772 "
        "0.3036153715 0.3214326925 0.3073204485 0.4401764432 0.6122532396 0.3204214574 "
        "0.1591676074 0.2812031386 0.4095533716 0.2682879358 0.2948697484 0.2386811852 "
        "0.7797252192 -23.6293783 -21.56331381"
    ),
    ("wine", "VVV"): (
        "-533.3871776 0.5423240501 0.4576759499 0.6475491777 -0.1993168807 0.6755518137 "
        "-0.428082746 0.3834948977 0.5806185933 0.7475669367 -0.3965474685 0.1639714134 "
        "-0.07377347789 0.5758054483 0.6873213166 1.057392889 1.235414301 -0.4007698011 "
        "-0.09104350385 -1.100673868 0.5548515347 1.214861726 1.199019194 -0.7915939335 "
        "0.9830664304 0.5305703525 0.3174457843 0.8661754061 1.306041044 0.1117814214 "
        "0.2406299439 0.4065277761 0.2787978477 0.2897450518 0.06721603982 0.04358683398 "
        "0.1609789756 0.1925599346 0.08845533879 0.1224578203 0.1427447356 0.2009641842 "
        "0.1295351158 0.1263661403 0.126083776 0.1903842002 0.2441780734 0.1312289139 "
        "0.06634368583 0.1171493911 0.1619937086 0.1093638059 0.1220957264 0.1018696115 "
        "0.2846392897 -32.17135547 -31.59809934"
    ),
}

#: mclust 6.0.0's BIC (``2 loglik - df ln n``) of one component under the default prior,
#: setosa: ``mclustBIC(X, G = 1, prior = priorControl())[1, c("EII", "EEI", "EEE")]``,
#: its one-component models of the three forms (mvnXII, mvnXXI, mvnXXX)
MCLUST_ONE_COMPONENT = {"EII": -71.37325242, "EEI": 4.910756002, "EEE": 31.00655689}


@pytest.fixture(scope="module")
def data():
    X, y = load_iris(return_X_y=True)
    out = {f"iris{c}": X[y == c] for c in range(3)}
    Xw, yw = load_wine(return_X_y=True)
    out["wine"] = ((Xw - Xw.mean(axis=0)) / Xw.std(axis=0, ddof=1))[yw == 0]
    return out


def labels(name):
    return np.array([int(v) for v in PARTITIONS[name]])


def fit_from_partition(X, name, model, prior="default"):
    return fit_mixture(
        X, None, 2, covariance=model, reg_covar=0.0, tol=1e-13, max_iter=10_000,
        starts=[labels(name)], prior=prior,
    )  # fmt: skip


def close(ours, theirs, what):
    """Entry by entry to 1e-6 relative (zeros exactly where mclust's are: the off-diagonal
    entries of the diagonal models)."""
    theirs = np.asarray(theirs)
    assert ours.shape == theirs.shape, what
    np.testing.assert_array_equal(ours[theirs == 0], 0.0, err_msg=what)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0, err_msg=what)


# ------------------------------------------------------------------ against mclust
@pytest.mark.parametrize("model", PRIOR_MODELS)
@pytest.mark.parametrize("name", list(PARTITIONS))
def test_map_em_from_a_partition_equals_mclust_me_with_its_prior(data, name, model):
    X = data[name]
    n, d = X.shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged, no warning
        fitted = fit_from_partition(X, name, model)
    ref = np.array(MCLUST_PRIOR_ME[name, model].split(), dtype=float)
    loglik = fitted.log_density(X).sum()
    close(np.array([loglik]), ref[:1], "log-likelihood")
    close(fitted.weights_, ref[1:3], "weights")
    close(fitted.means_.ravel(), ref[3 : 3 + 2 * d], "means")
    S = fitted.full_covariances()
    if name == "wine":
        ours = np.concatenate([np.einsum("kjj->kj", S).ravel(), np.linalg.slogdet(S)[1]])
    else:
        ours = np.concatenate([s[np.tril_indices(d)] for s in S])
    close(ours, ref[3 + 2 * d :], "covariances")
    # BIC: the log-likelihood at the MAP estimate, the usual number of parameters
    n_parameters = 1 + 2 * d + n_covariance_parameters(model, 2, d)
    assert fitted.n_parameters() == n_parameters
    mclust_bic = 2 * ref[0] - n_parameters * np.log(n)
    assert fitted.bic(X) == pytest.approx(-mclust_bic, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("model", ["EII", "EEI", "VEI", "EEE", "VEV", "VVV"])
def test_both_em_paths_agree_under_a_prior(data, model, monkeypatch):
    X = data["iris1"]
    small = fit_from_partition(X, "iris1", model)
    monkeypatch.setattr(em_small, "SMALL_CELLS", 0)  # the blocked passes of em.py
    blocked = fit_from_partition(X, "iris1", model)
    assert small.n_iter_ == blocked.n_iter_
    np.testing.assert_allclose(small.means_, blocked.means_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(small.covariances_, blocked.covariances_, rtol=0, atol=1e-9)


def test_one_component_bic_of_a_search_equals_mclustbic(data):
    # under a prior a search fits each form's one-component model once, as mclustBIC
    X = data["iris0"]
    like = Mixture("bic", "bic", reg_covar=0.0, tol=1e-10, max_components=1, prior="default").fit(
        X, np.zeros(50, dtype=int), 1
    )
    table, refused = like.bic_[0], like.refused_[0]
    for model, bic in MCLUST_ONE_COMPONENT.items():
        assert table[model, 1] == pytest.approx(-bic, rel=1e-8)
    assert table["VII", 1] == table["EII", 1] and table["VEV", 1] == table["EEE", 1]
    assert set(refused) == {(m, 1) for m in ("VEE", "EVE", "VVE", "EVV")}
    assert all("not available with prior" in why for why in refused.values())


# ------------------------------------------------------------------ properties
def duplicated_class(rng):
    """A class in two dimensions whose second cluster is one point repeated 12 times."""
    return np.concatenate([rng.normal(0.0, 1.0, (40, 2)), np.tile([[6.0, 6.0]], (12, 1))])


@pytest.mark.parametrize("covariance", ["full", "diag", "spherical", "VEV", "EVI", "VEI"])
def test_a_prior_keeps_a_component_on_repeated_rows_from_collapsing(covariance):
    rng = np.random.default_rng(0)
    X = duplicated_class(rng)
    y = np.zeros(len(X), dtype=int)
    start = {"means_init": {0: [[0.0, 0.0], [6.0, 6.0]]}}
    with pytest.raises(ValueError, match="singular|variance floor|not positive"):
        Mixture(2, covariance, reg_covar=0.0, **start).fit(X, y, 1)  # ML: it collapses
    like = Mixture(2, covariance, reg_covar=0.0, prior="default", **start).fit(X, y, 1)
    model = like.mixtures_[0]
    assert np.isfinite(model.log_density(X)).all() and np.isfinite(model.bic(X))
    assert (np.linalg.eigvalsh(model.full_covariances()) > 0).all()
    np.testing.assert_allclose(np.sort(model.weights_), [12 / 52, 40 / 52], rtol=1e-6)


def test_a_prior_fits_a_class_of_few_distinct_rows_that_ml_refuses():
    X = np.tile([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], (10, 1))
    y = np.zeros(30, dtype=int)
    with pytest.raises(ValueError, match="distinct"):
        Mixture(2, "full", reg_covar=0.0, random_state=0).fit(X, y, 1)
    like = Mixture(2, "full", reg_covar=0.0, random_state=0, prior="default").fit(X, y, 1)
    assert np.isfinite(like.log_likelihood(X)).all()


def test_without_a_prior_the_map_code_is_never_reached(data, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the MAP step ran without a prior")

    for module, name in [
        (map_step, "pseudo_statistics"), (em_small, "pseudo_statistics"),
        (em_small, "map_means"), (steps, "map_parameters"), (map_step, "resolve_prior"),
    ]:  # fmt: skip
        monkeypatch.setattr(module, name, refuse)
    X, y = load_iris(return_X_y=True)
    for covariance in ("full", "tied", "VEV", "spherical"):
        GaussianMixtureBayes(2, covariance=covariance, random_state=0).fit(X, y)
    GaussianMixtureBayes("bic", covariance="bic", max_components=2, random_state=0).fit(X, y)
    monkeypatch.setattr(em_small, "SMALL_CELLS", 0)
    fit_mixture(data["iris0"], None, 2, covariance="EEE", starts=[labels("iris0")])


@pytest.mark.parametrize("model", ["EII", "EEI", "VEI", "EEE", "EEV", "VVV"])
def test_integer_weights_equal_repeated_rows_under_a_prior(data, model):
    X, start = data["iris2"], labels("iris2")
    w = np.arange(len(X)) % 3 + 1
    options = {"covariance": model, "prior": "default", "tol": 1e-12, "max_iter": 500}
    weighted = fit_mixture(X, w, 2, starts=[start], **options)
    repeated = fit_mixture(
        np.repeat(X, w, axis=0), None, 2, starts=[np.repeat(start, w)], **options
    )
    np.testing.assert_allclose(weighted.weights_, repeated.weights_, rtol=1e-9)
    np.testing.assert_allclose(weighted.means_, repeated.means_, rtol=1e-9)
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-8)


def test_save_and_load_keep_a_model_with_a_prior():
    X, y = load_iris(return_X_y=True)
    models = [
        GaussianMixtureBayes(2, prior="default", random_state=0),
        GaussianMixtureBayes(2, prior=NormalInverseWishart(shrinkage=0.1, dof=8), random_state=0),
        GaussianMixtureBayes(2, covariance="diag", prior=NormalGamma(shape=2.0), random_state=0),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, model in enumerate(models):
            model.fit(X, y)
            path = os.path.join(tmp, f"m{i}.bayesrule")
            save(model, path)
            again = load(path)
            assert repr(again.prior) == repr(model.prior)
            np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
            refit = again.fit(X, y)  # the prior still works
            np.testing.assert_allclose(refit.predict_proba(X), model.predict_proba(X))


def test_a_given_prior_is_used_and_its_defaults_are_mclusts(data):
    X = data["iris0"]
    default = fit_from_partition(X, "iris0", "VVV")
    scale = np.cov(X, rowvar=False) * 2 ** (-2 / 4)  # defaultPrior: G^(-2/d) var(X)
    given = NormalInverseWishart(mean=X.mean(axis=0), shrinkage=0.01, dof=6.0, scale=scale)
    explicit = fit_from_partition(X, "iris0", "VVV", prior=given)
    np.testing.assert_allclose(explicit.covariances_, default.covariances_, rtol=1e-12)
    wider = fit_from_partition(X, "iris0", "VVV", prior=NormalInverseWishart(scale=10 * scale))
    assert not np.allclose(wider.covariances_, default.covariances_, rtol=1e-3)
    # a NormalGamma's shape and rate are half mclust's dof and scale
    spherical = fit_from_partition(X, "iris0", "VII")
    s2 = np.var(X, axis=0, ddof=1).mean() * 2 ** (-2 / 4)  # G^(-2/d) mean(var)
    halves = fit_from_partition(X, "iris0", "VII", prior=NormalGamma(shape=3.0, rate=s2 / 2))
    np.testing.assert_allclose(halves.covariances_, spherical.covariances_, rtol=1e-12)


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    "options, error, match",
    [
        (
            {"prior": NormalInverseWishart(mean=[0.0, 0.0])},
            ValueError,
            r"mean must have shape \(4,\)",
        ),
        ({"prior": NormalInverseWishart(dof=3.0)}, ValueError, "dof must exceed d - 1 = 3"),
        ({"prior": NormalInverseWishart(scale=np.eye(3))}, ValueError, r"scale must have shape"),
        (
            {"covariance": "diag", "prior": NormalGamma(rate=[1.0, 2.0])},
            ValueError,
            r"rate must have shape \(4,\)",
        ),
        ({"prior": "mclust"}, ValueError, "'default'"),
        ({"prior": {"shrinkage": 0.1}}, TypeError, "NormalInverseWishart or a NormalGamma"),
        ({"prior": NormalGamma()}, TypeError, "takes a NormalInverseWishart"),
        ({"covariance": "VEE", "prior": "default"}, ValueError, "EII, VII, EEI, VEI, EVI"),
        ({"covariance": "bic", "prior": NormalGamma()}, ValueError, "prior='default'"),
        ({"covariance": "EII", "prior": NormalGamma(rate=1.0)}, ValueError, "rate=None"),
    ],
)
def test_bad_priors_are_refused_with_the_fix(options, error, match):
    X, y = load_iris(return_X_y=True)
    options = {"n_components": 2, "random_state": 0, **options}
    if options.get("covariance") == "bic":
        options["n_components"] = "bic"
    with pytest.raises(error, match=match):
        GaussianMixtureBayes(**options).fit(X, y)


def test_missing_values_and_dask_are_refused_under_a_prior():
    from dask_blocks import InMemory

    X, y = load_iris(return_X_y=True)
    holes = X.copy()
    holes[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        GaussianMixtureBayes(2, prior="default", random_state=0).fit(holes, y)
    parts = [(X[i : i + 40], y[i : i + 40], None) for i in range(0, 150, 40)]
    with pytest.raises(ValueError, match="Dask"):
        Mixture(2, prior="default").fit_blocks(InMemory(parts), 3)
    assert GaussianMixtureBayes(prior="default").get_params()["prior"] == "default"
