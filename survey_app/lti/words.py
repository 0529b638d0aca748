"""What the LTI pages say when a login or launch is refused, or lands where it cannot go yet: one
sentence a check, in the page's language. No sentence repeats what the platform sent."""

from __future__ import annotations

from flask_babel import lazy_gettext

#: Each refused check (launches.LaunchRefused.reason), in words.
REFUSALS = {
    "login_fields": lazy_gettext(
        "This course link did not start a launch as LTI 1.3 does (it sent no issuer, login hint "
        "or target): open it again from the course."
    ),
    "unknown_platform": lazy_gettext(
        "This learning platform is not registered with this survey app: ask its operator to add it."
    ),
    "unknown_deployment": lazy_gettext(
        "This deployment of the tool is not registered with this survey app: ask its operator to "
        "add it."
    ),
    "state": lazy_gettext(
        "This launch does not match a login begun here, or came too late or twice: open the link "
        "again from the course (or in a new window, if your browser blocks the course’s cookies)."
    ),
    "unbound": lazy_gettext(
        "This launch came without the cookie its login set, as happens in a course’s frame when "
        "the browser blocks the course’s cookies; an instructor’s launch needs it. Open the link "
        "in a new window, or ask the course’s administrator to set the tool to open in a new "
        "window."
    ),
    "token": lazy_gettext(
        "The course sent a launch that is not signed as LTI 1.3 asks: nothing was opened."
    ),
    "unknown_key": lazy_gettext(
        "The course signed this launch with a key its key set does not hold: nothing was opened."
    ),
    "key_set": lazy_gettext(
        "The course’s key set could not be read, so this launch could not be checked: try again "
        "in a minute."
    ),
    "expired": lazy_gettext("This launch has expired: open the link again from the course."),
    "audience": lazy_gettext(
        "This launch was meant for another tool or came from another platform: nothing was opened."
    ),
    "nonce": lazy_gettext(
        "This launch was used already or does not match its login: open the link again from the "
        "course."
    ),
    "message": lazy_gettext(
        "The course sent a kind of launch this survey app does not take (it takes LTI 1.3 "
        "resource links, deep linking and data privacy launches)."
    ),
    "roles": lazy_gettext("The course sent this launch without the roles LTI 1.3 requires."),
    "no_survey": lazy_gettext(
        "This course link names no survey of this app, or one that is not open: ask your "
        "professor for the link."
    ),
    "deep_linking_role": lazy_gettext(
        "Only the course’s instructors can choose a survey for it: ask yours to add the link."
    ),
    "ticket": lazy_gettext(
        "This choice of a survey has expired or was changed: add the survey from the course again."
    ),
    "chooser_sign_in": lazy_gettext(
        "Inside the course’s page, only an instructor whose course account is linked to a "
        "survey-app account can choose a survey, and this launch named no user to link: open the "
        "tool in a new window and sign in there."
    ),
    "link_ticket": lazy_gettext(
        "This page to link your course account has expired or was changed, or was opened in "
        "another browser: open the link again from the course."
    ),
    "not_owner": lazy_gettext(
        "You are signed in, but this course link opens a survey of another account of this "
        "survey app: ask its owner, or add one of your own surveys to the course."
    ),
}
