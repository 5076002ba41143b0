"""scikit-learn estimators solved by an ircgd service.

    from ircg_client.sklearn import BilevelRegressor, BilevelLogisticRegression
    est = BilevelRegressor(url="http://127.0.0.1:8080", domain="l1_ball", radius=10.0)
    est.fit(X, y, X_val=X2, y_val=y2)      # outer: the validation loss
    est.coef_, est.intercept_, est.predict(X3)

Each fit is one job (Client.solve): the inner problem is the training
loss over the domain, the outer one the validation loss when validation
rows are given, else 1/2 ||w||^2 (the least-norm minimizer of the
training loss: for least squares the minimum-norm least-squares
solution when the domain holds it).  They follow scikit-learn's rules
(get_params/set_params, clone, pipelines, check_estimator: the test
names each check that does not apply and why).  Needs scikit-learn and
NumPy; the rest of ircg_client does not.
"""

import os
from typing import Any, Dict, Optional

import numpy as np  # type: ignore[import-not-found]
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin  # type: ignore
from sklearn.utils.multiclass import check_classification_targets  # type: ignore
from sklearn.utils.validation import check_array, check_is_fitted  # type: ignore

from .client import Client
from .problems import least_squares, logistic_regression

SPARSE = ["csr", "csc", "coo"]


def _with_ones(X: Any) -> Any:
    """X with a column of ones appended (the intercept as a coefficient)."""
    if hasattr(X, "tocsr"):
        import scipy.sparse as sp  # type: ignore[import-not-found]
        return sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    return np.hstack([X, np.ones((X.shape[0], 1))])


class _Bilevel(BaseEstimator):  # type: ignore[misc]
    """What both estimators share: the service, the domain, the outer
    objective, the method and its stop."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 domain: str = "l2_ball", radius: float = 100.0,
                 outer: Optional[str] = None, method: Optional[str] = None,
                 max_iter: int = 2000, stop: Optional[Dict[str, Any]] = None,
                 step_rule: Optional[str] = "line_search", fit_intercept: bool = True,
                 iterate: str = "x", timeout: Optional[float] = None,
                 progress: bool = False):
        self.url = url
        self.token = token
        self.domain = domain
        self.radius = radius
        self.outer = outer
        self.method = method
        self.max_iter = max_iter
        self.stop = stop
        self.step_rule = step_rule
        self.fit_intercept = fit_intercept
        self.iterate = iterate
        self.timeout = timeout
        self.progress = progress

    def _client(self) -> Client:
        return Client(self.url or os.environ.get("IRCG_URL", "http://127.0.0.1:8080"),
                      token=self.token or os.environ.get("IRCG_TOKEN"))

    def _solve(self, problem: Any) -> Any:
        alg: Dict[str, Any] = {"max_iter": int(self.max_iter)}
        if self.step_rule and self.method in (None, "ircg"):
            alg["step_rule"] = self.step_rule
        sol = self._client().solve(problem, stop=self.stop, method=self.method,
                                   progress=self.progress, timeout=self.timeout, **alg)
        self.n_iter_ = sol.iterations
        self.status_ = sol.status
        self.certificate_ = sol.certificate
        self.job_id_ = sol.id
        w = np.asarray(sol.x if self.iterate == "x" else sol.z, dtype=np.float64)
        return w

    def _val(self, X_val: Any) -> Any:
        return check_array(X_val, accept_sparse=SPARSE, dtype=np.float64)


class BilevelRegressor(RegressorMixin, _Bilevel):  # type: ignore[misc]
    """Least squares, bilevel: min f(w) over the minimizers of 1/2 ||X w +
    c - y||^2 on the domain (l2_ball, l1_ball, simplex with radius).  f:
    the validation loss 1/2 ||X_val w + c - y_val||^2 when fit is given
    X_val, y_val (outer None or "validation"), else 1/2 ||w||^2.  The
    intercept c: dense X is centered (c free), sparse X gets a column of
    ones (c a coefficient).

    coef_, intercept_, n_iter_, status_ (the solver's), certificate_ (its
    certified bounds), job_id_ (the service's job)."""

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> "BilevelRegressor":
        X, y = self._validate_data(X, y, accept_sparse=SPARSE, dtype=np.float64,
                                   y_numeric=True)
        center = self.fit_intercept and not hasattr(X, "tocsr")
        xm = X.mean(axis=0) if center else np.zeros(X.shape[1])
        ym = float(y.mean()) if center else 0.0
        A = X - xm if center else (_with_ones(X) if self.fit_intercept else X)
        Av = bv = None
        if X_val is not None:
            Xv = self._val(X_val)
            if Xv.shape[1] != X.shape[1]:
                raise ValueError("X_val has %d features, X has %d" % (Xv.shape[1], X.shape[1]))
            Av = Xv - xm if center else (_with_ones(Xv) if self.fit_intercept else Xv)
            bv = np.asarray(y_val, dtype=np.float64).ravel() - ym
        outer = self.outer or ("validation" if Av is not None else "half_norm_sq")
        w = self._solve(least_squares(A, y - ym, domain=self.domain, radius=self.radius,
                                      outer=outer, A_val=Av, b_val=bv))
        if center:
            self.coef_, self.intercept_ = w, ym - float(xm @ w)
        elif self.fit_intercept:
            self.coef_, self.intercept_ = w[:-1], float(w[-1])
        else:
            self.coef_, self.intercept_ = w, 0.0
        return self

    def predict(self, X: Any) -> Any:
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=SPARSE, dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    def _more_tags(self) -> Dict[str, Any]:
        return {"multioutput": False}


class BilevelLogisticRegression(ClassifierMixin, _Bilevel):  # type: ignore[misc]
    """Logistic regression, bilevel, for two classes: min f(w) over the
    minimizers of sum_i log(1 + exp(-y_i (x_i'w + c))) on the domain, y_i
    = +1 for classes_[1] and -1 for classes_[0].  f: the validation
    logistic loss when fit is given X_val, y_val, else 1/2 ||w||^2.  The
    intercept c is a coefficient (a column of ones).

    classes_, coef_, intercept_, n_iter_, status_, certificate_, job_id_."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 domain: str = "l2_ball", radius: float = 10.0,
                 outer: Optional[str] = None, method: Optional[str] = None,
                 max_iter: int = 500, stop: Optional[Dict[str, Any]] = None,
                 step_rule: Optional[str] = "line_search", fit_intercept: bool = True,
                 iterate: str = "x", timeout: Optional[float] = None,
                 progress: bool = False):
        super().__init__(url, token, domain, radius, outer, method, max_iter, stop, step_rule,
                         fit_intercept, iterate, timeout, progress)

    def _labels(self, y: Any) -> Any:
        return np.where(np.asarray(y) == self.classes_[1], 1.0, -1.0)

    def fit(self, X: Any, y: Any, X_val: Any = None,
            y_val: Any = None) -> "BilevelLogisticRegression":
        X, y = self._validate_data(X, y, accept_sparse=SPARSE, dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError("BilevelLogisticRegression needs samples of exactly 2 classes; "
                             "got %d class(es)" % len(self.classes_))
        A = _with_ones(X) if self.fit_intercept else X
        Av = bv = None
        if X_val is not None:
            Xv = self._val(X_val)
            if Xv.shape[1] != X.shape[1]:
                raise ValueError("X_val has %d features, X has %d" % (Xv.shape[1], X.shape[1]))
            Av = _with_ones(Xv) if self.fit_intercept else Xv
            bv = self._labels(y_val)
        outer = self.outer or ("validation" if Av is not None else "half_norm_sq")
        w = self._solve(logistic_regression(A, self._labels(y), domain=self.domain,
                                            radius=self.radius, outer=outer, A_val=Av,
                                            y_val=bv))
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[:-1], float(w[-1])
        else:
            self.coef_, self.intercept_ = w, 0.0
        return self

    def decision_function(self, X: Any) -> Any:
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=SPARSE, dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    def predict(self, X: Any) -> Any:
        d = self.decision_function(X)  # NotFittedError first
        return self.classes_[(d > 0).astype(int)]

    def predict_proba(self, X: Any) -> Any:
        p = 1.0 / (1.0 + np.exp(-self.decision_function(X)))
        return np.column_stack([1.0 - p, p])

    def predict_log_proba(self, X: Any) -> Any:
        return np.log(self.predict_proba(X))

    def _more_tags(self) -> Dict[str, Any]:
        return {"binary_only": True}
