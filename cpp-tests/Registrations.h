// SPDX-License-Identifier: MIT
//
// What a test registers in the global Center — models, providers, functions — under fresh
// ids, and removes again in its cleanup(): the tests that run dialogs share it.
#ifndef VI_TESTS_REGISTRATIONS_H
#define VI_TESTS_REGISTRATIONS_H

#include <Agent/Center.h>
#include <Agent/Dialog.h>

#include <QtCore/QStringList>

class Registrations
{
public:
    // Registers `model`; returns its id.
    QString addModel(const Visindigo::Agent::Model& model)
    {
        Visindigo::Agent::Center::getInstance()->addModel(model);
        models << model.getId();
        return model.getId();
    }

    // A provider holding the given models (first = highest priority), registered.
    QString addProvider(const QStringList& modelIds)
    {
        Visindigo::Agent::Provider provider;
        qint32 priority = qint32(modelIds.size());
        for (const QString& id : modelIds)
            provider.addModel(id, priority--);
        Visindigo::Agent::Center::getInstance()->addProvider(provider);
        providers << provider.getId();
        return provider.getId();
    }

    // An unregistered dialog owned by `owner`, on a provider of its own holding `modelIds`.
    Visindigo::Agent::Dialog* newDialog(QObject* owner, const QStringList& modelIds)
    {
        auto* dialog = new Visindigo::Agent::Dialog;
        dialog->setParent(owner);
        dialog->setProviderId(addProvider(modelIds));
        return dialog;
    }

    // Removes every registration, the Center's functions, and the default provider.
    void clear()
    {
        Visindigo::Agent::Center* center = Visindigo::Agent::Center::getInstance();
        for (const QString& id : std::as_const(providers))
            center->removeProvider(id);
        for (const QString& id : std::as_const(models))
            center->removeModel(id);
        for (const QString& id : center->getFunctionIds())
            center->removeFunction(id);
        center->setDefaultProvider(QString());
        providers.clear();
        models.clear();
    }

private:
    QStringList models;
    QStringList providers;
};

#endif // VI_TESTS_REGISTRATIONS_H
