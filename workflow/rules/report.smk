# report: rules are added here (see common.smk for conventions).
