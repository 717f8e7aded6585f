import FetchLabResults

extension PlannedFetchCalibration {
    /// Fits the calibrator on `fit` and judges raw and calibrated probabilities on `heldOut`.
    public init(fit: [CalibrationSample], heldOut: [CalibrationSample]) {
        let calibrator = ProbabilityCalibrator(fitting: fit)
        self.init(
            fitSamples: fit.count, calibrator: calibrator, raw: ReliabilityTable(heldOut),
            calibrated: ReliabilityTable(
                heldOut.map { CalibrationSample(stated: calibrator($0.stated), outcome: $0.outcome) }))
    }
}
