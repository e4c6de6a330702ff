"""Reference numbers from R's mclust 6.0.0 for its 14 covariance parametrisations, with
the classes as the groups, on iris, wine (standardised) and the Palmer penguins.

How they were computed: each data set below (``data(name)``) was written to a CSV file
at full precision (``%.17g``; the matrix X and the class index), read into R as ``X``
(n x d) with ``cl`` the class index + 1, and for each model ``m`` of
``mclust.options("emModelNames")``::

    ms <- mstep(modelName = m, data = X, z = unmap(cl), warn = FALSE)
    es <- do.call("estep", c(ms, list(data = X, warn = FALSE)))
    c(es$loglik, do.call("bic", c(es, list(equalPro = TRUE))),
      sum(cdens(modelName = m, data = X, logarithm = TRUE,
                parameters = ms$parameters)[cbind(1:n, cl)]))

that is, per model: ``(mixture, bic, classification)``:

* ``mixture``: ``estep``'s log-likelihood ``sum_i ln sum_k pi_k N(x_i; mu_k, Sigma_k)``
  (``pi_k`` the class proportions): what ``MclustDA(X, cl, modelType = "EDDA")``
  reports as ``loglik`` for its chosen model;
* ``bic``: ``2 mixture - df ln n`` with ``df = C d + nVarParams(m, d, C)`` (``equalPro``:
  proportions not counted): ``MclustDA``'s EDDA BIC;
* ``classification``: ``sum_i ln N(x_i; mu_{y_i}, Sigma_{y_i})``, the log-likelihood of
  the rows under their own class's density (``cdens`` with the same parameters).

``MclustDA(X, cl, modelType = "EDDA")$models[[1]]$modelName`` gave :data:`EDDA_CHOICE`.
"""

from functools import cache

import numpy as np
from real_data import load
from sklearn.preprocessing import StandardScaler

DATASETS = ("iris", "wine", "penguins")

#: MclustDA(X, cl, modelType = "EDDA")$models[[1]]$modelName
EDDA_CHOICE = {"iris": "VEV", "wine": "VVE", "penguins": "VVE"}

#: MclustDA(X, cl, modelType = "EDDA"): c(loglik, bic, df)
EDDA_REPORTED = {
    "iris": (-187.70974440500405, -555.80235939747331, 36),
    "wine": (-2293.2261420411755, -5394.8105179279164, 156),
    "penguins": (-5167.2259818439625, -10509.496285799803, 30),
}

#: per data set and model: (mixture log-likelihood, BIC, classification log-likelihood)
MCLUST = {
    "iris": {
        "EII": (-414.69795127333822, -894.5341613699278, -279.87593499307405),
        "VII": (-392.4984144984889, -860.15635840842162, -253.17318046279021),
        "EEI": (-364.51736433808207, -809.20489338170421, -219.29645722892127),
        "VEI": (-340.83605247559302, -771.86354024491868, -190.66698996267598),
        "EVI": (-342.97369847280191, -796.18137341572151, -199.433825880982),
        "VVI": (-309.3627578939421, -738.98076284619435, -161.25823788925953),
        "EEE": (-256.64618425488476, -623.5263449798872, -98.411899973949446),
        "VEE": (-238.3946990591156, -597.04464517654128, -80.889753108923998),
        "EVE": (-235.55048426034375, -611.39875675538269, -76.750864243134671),
        "VVE": (-215.3443048498477, -581.00766852258312, -56.664052323427683),
        "EEV": (-215.14326312743637, -600.64812625414538, -56.008614657424964),
        "VEV": (-187.70974440500405, -555.80235939747331, -29.255669142433458),
        "EVV": (-209.45479769867046, -619.33500716119113, -49.565685152758817),
        "VVV": (-182.92084860529599, -576.28837956263465, -23.583711600218983),
    },
    "wine": {
        "EII": (-2791.548454609554, -5790.3682512307914, -2616.2677895272182),
        "VII": (-2744.1131798908668, -5705.8612688940011, -2564.6759258934271),
        "EEI": (-2701.0764373683323, -5671.6056193518534, -2526.0290628090174),
        "VEI": (-2662.3646930725031, -5604.545697860779, -2480.099506570396),
        "EVI": (-2603.6008735428909, -5601.0172969079804, -2432.6804794089849),
        "VVI": (-2569.2024026865456, -5542.5839222958739, -2385.0227391942622),
        "EEE": (-2442.548461646857, -5558.7287848316855, -2250.0457694905176),
        "VEE": (-2405.7552831970647, -5495.505995032685, -2213.4017667205803),
        "EVE": (-2332.8295452046827, -5463.6537571543467, -2140.0619438577232),
        "VVE": (-2293.2261420411755, -5394.8105179279164, -2100.6347636067649),
        "EEV": (-2121.7512558216717, -5725.4926070268793, -1929.7735313066426),
        "VEV": (-2061.5266071549054, -5615.4068767939316, -1869.8146637933912),
        "EVV": (-2114.7348275452805, -5835.8225556811076, -1922.4261751557422),
        "VVV": (-2052.4098338694594, -5721.5361354300494, -1860.2218879334516),
    },
    "penguins": {
        "EII": (-9474.1869193625353, -19024.226378306885, -9381.2942681963359),
        "VII": (-9458.4138210727688, -19004.349803201476, -9368.843834824067),
        "EEI": (-5414.5956406331379, -10922.548253059278, -5091.2983239501127),
        "VEI": (-5414.5240465005045, -10934.074686268135, -5091.2149852285811),
        "EVI": (-5407.2796412780172, -10942.925118771411, -5081.9206946747809),
        "VVI": (-5407.201005707394, -10954.43746910429, -5081.8902718157533),
        "EEE": (-5191.5862828607324, -10511.538401936841, -4840.7337569256497),
        "VEE": (-5185.131083543658, -10510.297624776818, -4834.4767732935179),
        "EVE": (-5174.0355453556622, -10511.445791349077, -4823.0342840379753),
        "VVE": (-5167.2259818439625, -10509.496285799803, -4816.2198934796643),
        "EEV": (-5177.6987303736232, -10553.781025807375, -4826.6974789297701),
        "VEV": (-5170.9205822598851, -10551.894351054025, -4820.330072291621),
        "EVV": (-5159.2780519420712, -10551.948533366647, -4808.2557637075688),
        "VVV": (-5152.4186447822685, -10549.899340521166, -4801.1785334718361),
    },
}

#: nVarParams(m, d, G) for (d, G) in PARAMETER_SIZES, from R
PARAMETER_SIZES = ((1, 1), (2, 1), (1, 3), (5, 4), (13, 3))
N_VAR_PARAMS = {
    "EII": (1, 1, 1, 1, 1),
    "VII": (1, 1, 3, 4, 3),
    "EEI": (1, 2, 1, 5, 13),
    "VEI": (1, 2, 3, 8, 15),
    "EVI": (1, 2, 1, 17, 37),
    "VVI": (1, 2, 3, 20, 39),
    "EEE": (1, 3, 1, 15, 91),
    "VEE": (1, 3, 3, 18, 93),
    "EVE": (1, 3, 1, 27, 115),
    "VVE": (1, 3, 3, 30, 117),
    "EEV": (1, 3, 1, 45, 247),
    "VEV": (1, 3, 3, 48, 249),
    "EVV": (1, 3, 1, 57, 271),
    "VVV": (1, 3, 3, 60, 273),
}


@cache
def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, class index)``: iris; wine standardised (StandardScaler); the penguins'
    four measurements, rows with a missing one dropped (species in alphabetical order)."""
    X, labels = load(name)
    if name == "wine":
        X = StandardScaler().fit_transform(X)
    y = np.unique(labels, return_inverse=True)[1]
    return X, y


def moments(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class weights (C,), means (C, d) and centred scatter matrices (C, d, d)."""
    X, y = data(name)
    C = y.max() + 1
    means = np.array([X[y == k].mean(axis=0) for k in range(C)])
    scatters = np.array([(X[y == k] - means[k]).T @ (X[y == k] - means[k]) for k in range(C)])
    return np.bincount(y).astype(float), means, scatters
