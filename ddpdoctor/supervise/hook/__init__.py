"""The startup hook `ddpdoctor run` puts on the job's PYTHONPATH (see sitecustomize.py)."""
