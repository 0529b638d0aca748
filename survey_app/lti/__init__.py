"""LTI 1.3: the tool a learning platform (Canvas, Moodle, Blackboard) launches from a course.

An operator registers each platform (``survey-app lti-add-platform``: platforms.py); the tool
signs with its own key, published at ``/lti/jwks.json`` (keys.py); a launch is the OpenID
Connect third-party login (``/lti/login``) and the signed ``id_token`` the platform posts back
(``/lti/launch``), checked whole before anything happens (launches.py; the pages: views.py).

Who launched is never kept: a launch's token is read, checked and dropped; a learner lands on
the survey as if the join code had been typed, with nothing of the platform's user in storage,
the session or the logs.
"""
